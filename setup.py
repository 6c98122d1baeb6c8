"""Build: the pure core and the dealer's per-hand encoders compiled by mypyc: the same source at C speed.

``DEALER_PURE=1`` installs without compiling (no C compiler needed) and removes what an earlier
compiled build left beside the sources, which would otherwise still be imported.
"""

import glob
import os

from setuptools import setup

COMPILED = [
    "dealer/rules.py",
    "dealer/evaluator.py",
    "dealer/cards.py",
    "dealer/wire.py",
    "dealer/history.py",
    "dealer/aivat.py",
]

if os.environ.get("DEALER_PURE"):
    for built in glob.glob("dealer/*.so") + glob.glob("*__mypyc*.so"):
        os.remove(built)
    ext_modules = []
else:
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
