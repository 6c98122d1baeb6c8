"""Plays check/call, then from its first request on allocates memory without end (outside the
SDK's ``decide`` guard, so the MemoryError its memory limit causes ends the process)."""

import botlib

import pokerbot

hog = []


def on_item(item):
    if item.WhichOneof("kind") == "request":
        botlib.say("allocating without end")
        while True:
            hog.append(bytearray(8 << 20))  # bytearray() writes its pages: real memory, not just address space


botlib.record_pid()
pokerbot.run(lambda request: pokerbot.check_call(), name="memory-hog", on_item=on_item, argv=[])
