"""``dealer arena submit``'s side of the API: a folder packed into a tar.gz (or an archive sent as
it is) posted to ``/api/v1/submissions`` with the team's token; every failure one line."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import aiohttp

from dealer.arena.archive import kind_of
from dealer.arena.model import ArenaError

TIMEOUT_S = 300


class ClientError(ArenaError):
    """A submission that did not reach the arena or that the arena refused; the line says which."""


def pack(path: Path) -> bytes:
    """The bytes to submit: a folder as a tar.gz of its contents (its own name not included), or
    a tar.gz or zip file as it is."""
    if path.is_dir():
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz") as archive:
            for child in sorted(path.iterdir()):
                archive.add(child, arcname=child.name)
        return out.getvalue()
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ClientError(f"{path}: cannot read: {error.strerror or error}") from None
    if kind_of(data) is None:
        raise ClientError(f"{path}: not a folder, a tar.gz or a zip")
    return data


async def submit(server: str, token: str, path: Path) -> dict[str, object]:
    """Submit the bot at ``path`` to the arena at ``server``; the version the arena answers with."""
    data = pack(path)
    form = aiohttp.FormData()
    form.add_field("archive", data, filename=f"{path.name}.archive", content_type="application/octet-stream")
    url = server.rstrip("/") + "/api/v1/submissions"
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session,
            session.post(url, data=form, headers={"Authorization": f"Bearer {token}"}) as response,
        ):
            text = await response.text()
            status = response.status
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        raise ClientError(f"cannot reach the arena at {server}: {error or type(error).__name__}") from None
    body = _answer(url, status, text)
    if not isinstance(body, dict):
        raise ClientError(f"{url}: HTTP {status}, not the arena's answer: {text[:200]!r}")
    return body


async def fetch(server: str, token: str, path: str, put: object = None) -> object:
    """GET ``/api/v1/<path>`` with the team's token (or PUT ``put`` as JSON there); its JSON, or a
    ClientError line."""
    url = server.rstrip("/") + "/api/v1/" + path
    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session,
            session.get(url, headers=headers)
            if put is None
            else session.put(url, json=put, headers=headers) as response,
        ):
            text = await response.text()
            status = response.status
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        raise ClientError(f"cannot reach the arena at {server}: {error or type(error).__name__}") from None
    return _answer(url, status, text)


def _answer(url: str, status: int, text: str) -> object:
    """The JSON of the arena's answer; its error as a ClientError line."""
    try:
        body = json.loads(text)
    except ValueError:
        raise ClientError(f"{url}: HTTP {status}, not the arena's answer: {text[:200]!r}") from None
    if status >= 400:
        reason = body.get("error") if isinstance(body, dict) else None
        raise ClientError(f"the arena refused (HTTP {status}): {reason or text[:200]}")
    return body
