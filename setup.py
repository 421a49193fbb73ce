"""Builds the optional compiled core of the MonUnrail solver (termgames._unrail).

Everything else about the package is in pyproject.toml.  Without a working C
compiler the extension is skipped with a warning and the pure-Python solver
is used: termgames works the same, only slower on large MonUnrail shapes.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: a missing compiler is not an error."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # no compiler at all, a platform without one configured
            self.warn(f"termgames._unrail not built ({error}); the pure-Python MonUnrail solver will be used")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:
            self.warn(f"termgames._unrail not built ({error}); the pure-Python MonUnrail solver will be used")


setup(
    ext_modules=[Extension("termgames._unrail", ["termgames/_unrail.c"], optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
