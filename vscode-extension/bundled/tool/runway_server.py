"""Run the runway language server bundled in the extension with the Python that runs this file.

The extension starts ``<python> -I runway_server.py --log-level LEVEL --stdio``: ``-I`` keeps
the working folder, ``PYTHON*`` variables and the user's site-packages off ``sys.path``, so a
checkout of the tooling opened as the workspace cannot shadow the bundle (a ``runway_lsp``
imported from the working folder without its dependencies was the first-run failure of
issue 15). The server and every dependency come from ``../libs`` (``scripts/bundle.py`` fills
it with ``pip install --target``, one compiled ``pydantic_core`` / ``ruamel.yaml.clib``
extension per bundled CPython version), as Microsoft's Python tool extensions do
(vscode-python-tools-extension-template, ``bundled/tool/lsp_server.py``).

``runway_server.py --check`` starts nothing: it prints one JSON line
``{"ok": bool, "python": "3.12.1", "executable": ..., "code": ..., "reason": ...}`` and exits
0, so the extension can tell "this interpreter cannot run the bundle, and why" from a crash.
``code`` is one of ``too-old`` (below 3.11), ``not-cpython``, ``no-bundle`` (``libs`` missing)
or ``no-native`` (the bundle has no compiled extension for this Python version or platform).

Without ``--check`` the same problem is one line on stderr and exit code 3; otherwise the
exit code is the server's (``runway-lsp``: 0 after shutdown and exit, 1, 2).

Kept to Python 3.6 syntax, so that an old interpreter gets the "too old" line, not a
SyntaxError.
"""

import json
import os
import sys

MIN_VERSION = (3, 11)
HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(os.path.dirname(HERE), "libs")
#: Compiled modules the server cannot do without, as (package folder, module name prefix).
#: ruamel.yaml.clib is left out: ruamel.yaml falls back to its pure-Python parser.
REQUIRED_NATIVE = (("pydantic_core", "_pydantic_core"),)
EXIT_CANNOT_RUN = 3


def _version_text():
    return "{}.{}.{}".format(*sys.version_info[:3])


def _bundled_pythons():
    """The CPython versions the bundle was built for (libs/BUNDLE.json), for the message."""
    try:
        with open(os.path.join(LIBS, "BUNDLE.json"), encoding="utf-8") as f:
            info = json.load(f)
        return "{} ({})".format(", ".join(info.get("pythons", [])), info.get("target", "?"))
    except (OSError, ValueError):
        return "unknown versions"


def problem():
    """``(code, reason)`` when this Python cannot run the bundled server, else ``None``."""
    if sys.version_info[:2] < MIN_VERSION:
        return "too-old", "Python {} is too old: the runway server needs Python {}.{} or newer".format(_version_text(), *MIN_VERSION)
    if sys.implementation.name != "cpython":
        return "not-cpython", "{} {} cannot load the bundled compiled modules: use CPython {}.{}+".format(sys.implementation.name, _version_text(), *MIN_VERSION)
    if not os.path.isdir(LIBS):
        return "no-bundle", "the extension has no bundled server ({} is missing): reinstall the extension".format(LIBS)
    import importlib.machinery

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for package, module in REQUIRED_NATIVE:
        try:
            names = os.listdir(os.path.join(LIBS, package))
        except OSError:
            names = []
        # The whole name, not the ending: ".so" is one of Linux's suffixes, and a macOS
        # module (`_pydantic_core.cpython-312-darwin.so`) ends with it too.
        if not any(module + suffix in names for suffix in suffixes):
            return "no-native", "the bundled server has {} for CPython {}, not for Python {} on {}: select one of those interpreters".format(
                package, _bundled_pythons(), _version_text(), sys.platform
            )
    return None


def main(argv):
    found = problem()
    if argv[:1] == ["--check"]:
        out = {"ok": found is None, "python": _version_text(), "executable": sys.executable}
        if found:
            out["code"], out["reason"] = found
        print(json.dumps(out))
        return 0
    if found:
        print("runway-lsp: " + found[1], file=sys.stderr)
        return EXIT_CANNOT_RUN
    sys.path.insert(0, LIBS)
    from runway_lsp.__main__ import main as server_main

    return server_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
