"""The checker's Python tests: the scripts live in ../python, the shared rules in shared/ at the root."""


def pytest_configure(config):
    # scripts/test.sh runs the tests without containers early, and these with the integration tier
    config.addinivalue_line("markers", "docker: starts containers on the Docker engine (the integration tier)")
