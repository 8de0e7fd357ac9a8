"""The repository's own pytest configuration, as far as the harness applies it."""

import os

# The repository's own pytest configuration: only what decides which files are tests and how they import
# is applied (testpaths, pythonpath, the naming options, norecursedirs, doctest options and the doctest
# switches of addopts); everything else (plugins, other addopts, filterwarnings, ...) stays ignored.
REPO_INI_KEYS = (
    "testpaths",
    "pythonpath",
    "python_files",
    "python_classes",
    "python_functions",
    "norecursedirs",
    "doctest_optionflags",
    "doctest_encoding",
)
DOCTEST_FLAGS = ("--doctest-modules", "--doctest-continue-on-failure", "--doctest-ignore-import-errors")


def repo_pytest_config(repo):
    """(file name, {key: [values]}, [doctest arguments]) of the configuration pytest would read at the
    repository root, or (None, {}, []). The files are protected, so in a grader they are the pristine ones."""
    import configparser
    import shlex

    def from_ini(name, section):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            with open(os.path.join(repo, name), encoding="utf-8") as handle:
                parser.read_file(handle)
        except (OSError, UnicodeDecodeError, configparser.Error):
            return None
        if not parser.has_section(section):
            return None
        return {key: shlex.split(value) for key, value in parser.items(section)}

    def from_toml(name):
        try:
            import tomllib

            with open(os.path.join(repo, name), "rb") as handle:
                data = tomllib.load(handle)
        except Exception:  # noqa: BLE001 - a file pytest cannot read either
            return None
        table = data.get("tool", {}).get("pytest", {}).get("ini_options")
        if not isinstance(table, dict):
            return None
        out = {}
        for key, value in table.items():
            if isinstance(value, str):
                out[key] = shlex.split(value)
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[key] = list(value)
        return out

    for name, read in (
        ("pytest.ini", lambda: from_ini("pytest.ini", "pytest")),
        (".pytest.ini", lambda: from_ini(".pytest.ini", "pytest")),
        ("pyproject.toml", lambda: from_toml("pyproject.toml")),
        ("tox.ini", lambda: from_ini("tox.ini", "pytest")),
        ("setup.cfg", lambda: from_ini("setup.cfg", "tool:pytest")),
    ):
        if not os.path.isfile(os.path.join(repo, name)) or os.path.islink(os.path.join(repo, name)):
            continue
        try:
            found = read()
        except ValueError:  # shlex: an unbalanced quote
            found = None
        if found is None:
            continue
        keys = {k: v for k, v in found.items() if k in REPO_INI_KEYS}
        doctest = []
        addopts = found.get("addopts", [])
        for i, arg in enumerate(addopts):
            if arg in DOCTEST_FLAGS:
                doctest.append(arg)
            elif arg.startswith("--doctest-glob="):
                doctest.append(arg)
            elif arg == "--doctest-glob" and i + 1 < len(addopts):
                doctest.append("--doctest-glob=" + addopts[i + 1])
        return name, keys, doctest
    return None, {}, []


def repo_ini_lines(repo, keys):
    """The ini lines of the kept keys; pythonpath made absolute (the ini lies elsewhere), kept inside the repository."""
    import shlex

    lines = []
    root = os.path.realpath(repo)
    for key in REPO_INI_KEYS:
        values = keys.get(key)
        if not values:
            continue
        if key == "pythonpath":
            values = [os.path.realpath(os.path.join(root, v)) for v in values]
            values = [v for v in values if v == root or v.startswith(root + os.sep)]
            if not values:
                continue
        lines.append("%s =" % key)
        lines.extend("    " + shlex.quote(v) for v in values)
    return lines
