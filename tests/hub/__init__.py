"""The loopback Hugging Face Hub (a package, so that its conftest is `hub.conftest` and `from conftest import ...`
in the other test folders still finds tests/conftest.py)."""
