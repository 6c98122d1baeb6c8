"""Build: the pure core and the dealer's per-hand encoders compiled by mypyc (the same source at C
speed), and the web view's browser libraries vendored from npm into every wheel and sdist.

``DEALER_PURE=1`` installs without compiling (no C compiler needed) and removes what an earlier
compiled build left beside the sources, which would otherwise still be imported.
"""

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from setuptools import Command, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

COMPILED = [
    "dealer/engine/rules.py",
    "dealer/engine/evaluator.py",
    "dealer/engine/cards.py",
    "dealer/engine/memo.py",
    "dealer/connect/wire.py",
    "dealer/connect/wire_codec.py",
    "dealer/connect/wire_json.py",
    "dealer/connect/wire_replies.py",
    "dealer/engine/history.py",
    "dealer/stats/aivat.py",
    "dealer/engine/equity.py",
    "dealer/league/table.py",
    "dealer/league/seeds.py",
    "dealer/connect/link.py",
    "dealer/connect/session.py",
    "dealer/connect/acpc_view.py",
    "dealer/stats/tally.py",
    "dealer/stats/tilted_deals.py",
    "dealer/stats/crossfit.py",
]
WEB = Path(__file__).resolve().parent / "dealer" / "web"
VENDORED = {"uPlot.iife.min.js": "uplot/dist/uPlot.iife.min.js", "uPlot.min.css": "uplot/dist/uPlot.min.css"}


class VendorWeb(Command):
    """Copy uPlot (pinned in dealer/web/package-lock.json) from npm into dealer/web/static/vendor/,
    where the live page and report.html read it; run before every build, so no wheel lacks it."""

    description = "vendor the web view's browser libraries from npm"
    user_options: ClassVar[list[tuple[str, str | None, str]]] = []

    def initialize_options(self) -> None:
        pass

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        vendor, lock = WEB / "static" / "vendor", WEB / "package-lock.json"
        targets = [vendor / name for name in VENDORED]
        if not lock.is_file() or all(t.is_file() and t.stat().st_mtime >= lock.stat().st_mtime for t in targets):
            return  # up to date, or built from an sdist that carries them
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"error: {vendor} needs uPlot from npm, and npm is not installed: install Node.js 20+")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=WEB, check=True)
        vendor.mkdir(parents=True, exist_ok=True)
        for target, source in zip(targets, VENDORED.values(), strict=True):
            shutil.copyfile(WEB / "node_modules" / source, target)


class BuildPy(build_py):
    """build_py, after vendoring the web assets (they are package data of dealer.web)."""

    def run(self) -> None:
        self.run_command("vendor_web")
        super().run()


class Sdist(sdist):
    """sdist, after vendoring the web assets, so an sdist builds without Node.js."""

    def run(self) -> None:
        self.run_command("vendor_web")
        super().run()


if os.environ.get("DEALER_PURE"):
    for built in glob.glob("dealer/**/*.so", recursive=True) + glob.glob("*__mypyc*.so"):
        os.remove(built)
    ext_modules = []
else:
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")
    if sys.platform != "win32":
        # IEEE results the same as the plain Python source's on any machine: no multiply and add fused
        # into one rounding (GCC fuses them by default wherever the CPU has FMA, as on ARM).
        for extension in ext_modules:  # (mypyc's extensions share one list of arguments)
            extension.extra_compile_args = [*extension.extra_compile_args, "-ffp-contract=off"]

# The vendored files' folder exists before setuptools looks for packages (vendor_web fills it later):
# found then, it is a package of dealer.web's data; absent from a fresh clone, setuptools warned for
# 40 lines that "Package 'dealer.web.static.vendor' would be ignored".
(WEB / "static" / "vendor").mkdir(exist_ok=True)
setup(ext_modules=ext_modules, cmdclass={"vendor_web": VendorWeb, "build_py": BuildPy, "sdist": Sdist})
