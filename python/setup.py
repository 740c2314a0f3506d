"""Build script of the nscd Python package; the metadata is in setup.cfg."""
from setuptools import setup

setup()
