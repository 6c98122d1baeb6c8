"""Tries to make a user namespace (where it would be root, with the kernel's namespaced
interfaces to probe) in a child process, logs "user namespace: created" or "user namespace:
refused (<error>)", then calls every request."""

import ctypes
import os

import botlib

import pokerbot

CLONE_NEWUSER = 0x10000000

botlib.record_pid()
read, write = os.pipe()
child = os.fork()
if child == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    done = libc.unshare(CLONE_NEWUSER)
    os.write(write, b"created" if done == 0 else f"refused ({os.strerror(ctypes.get_errno())})".encode())
    os._exit(0)
os.waitpid(child, 0)
botlib.say("user namespace:", os.read(read, 200).decode())
pokerbot.run(lambda request: pokerbot.check_call(), name="userns")
