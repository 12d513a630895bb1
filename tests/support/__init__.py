"""Helpers the tests share (tests/ is on pytest's `pythonpath`): `from support.runs import ...`.
Test modules import helpers from here and fixtures come from the conftest.py files; no test module
imports another."""
