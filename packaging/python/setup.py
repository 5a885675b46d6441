"""Builds the sessionsearch wheel (docs/install.md P4).

scripts/release copies the platform's sessionsearch.so into sessionsearch/
and runs pip wheel here with SESSIONSEARCH_VERSION (a PEP 440 version) and
SESSIONSEARCH_WHEEL_PLATFORM (the manylinux tag that the .so's glibc
symbols allow) set. The wheel holds a shared library that SQLite loads, not
a Python extension module: one wheel serves every Python 3 of a platform.
"""
import os

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


class platform_distribution(Distribution):
    # A platform's file: the wheel is not pure, and its files go to the
    # root of site-packages.
    def has_ext_modules(self):
        return True


class platform_wheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", os.environ["SESSIONSEARCH_WHEEL_PLATFORM"]


setup(
    version=os.environ["SESSIONSEARCH_VERSION"],
    distclass=platform_distribution,
    cmdclass={"bdist_wheel": platform_wheel},
)
