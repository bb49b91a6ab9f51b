"""JSON output: a stable, versioned interface (``format_version`` 1; docs/cli.md). Ranges are
0-based with characters in UTF-16 code units (as LSP), files relative to the root runway's
folder with ``/`` separators."""

from __future__ import annotations

import hashlib
import json
import re
from typing import IO, Any, Mapping, Sequence

from deploy_engine.cli.formats._shared import ci_path, counts, file_count
from deploy_engine.context import json_ascii
from deploy_engine.terminal import rel_path
from runway_core.facts import Analysis
from runway_core.diagnostics import Diagnostic, Severity
from runway_core.planner import FORMAT_VERSION, Plan, hide_secret_env, plan_json, shown_fields


def diagnostic_json(d: Diagnostic, an: Analysis, base: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One diagnostic as JSON: 0-based range, characters in UTF-16 code units (docs/cli.md);
    ``file`` relative to ``base``, or with ``environ`` as every format shows it (``ci_path``)."""
    src = an.files.get(d.file)
    rng = src.parsed.lines.encode_range(d.range, "utf-16") if src is not None else d.range
    return {
        "file": rel_path(d.file, base) if environ is None else ci_path(d.file, base, environ),
        "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        },
        "severity": d.severity.label,
        "code": d.code,
        "message": d.message,
    }


def _float(o: float) -> str:
    # As json's encoder with allow_nan=False: RFC 8259 §6 has no NaN nor Infinity, and a
    # document holding JavaScript's names for them is one no strict parser reads (issue 23).
    if o != o or o in (_INF, -_INF):
        raise ValueError(f"Out of range float values are not JSON compliant: {o!r}")
    return float.__repr__(o)


#: Characters json's encoder writes raw that a terminal or a log viewer does not take as text:
#: DEL, the C1 controls U+0080–U+009F (U+009B is CSI, an escape sequence to a VT terminal) and
#: U+2028/U+2029 (line breaks to editors, and line terminators to JavaScript before ES2019).
#: Also every surrogate code point (U+D800–U+DFFF): a file name's byte that is not UTF-8 is a
#: lone surrogate once decoded (``surrogateescape``: 0xE9 -> U+DCE9), which no UTF-8 text can
#: hold (writing it raised, exit 70; to a ``surrogateescape`` stdout it came out as the raw
#: byte, and the document was not UTF-8: sixth adversary F1, F2). As ``\udce9`` it is JSON's
#: own escape (RFC 8259 §7; §8.2 allows unpaired ones): ``os.fsencode(json.loads(...))`` gives
#: the exact bytes back, and the document stays valid UTF-8.
#: Written as ``\uXXXX`` (RFC 8259 §7 allows it for any character). They can only be inside a
#: string of the output (the rest is ASCII punctuation, digits and names), so the whole text is
#: translated at once.
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_UNSAFE_ESCAPES = {c: f"\\u{c:04x}" for c in [*range(0x7F, 0xA0), 0x2028, 0x2029, *range(0xD800, 0xE000)]}


_INF = float("inf")


def _key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, float):
        return _float(k)
    if isinstance(k, int):
        return int.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})
try:
    from _json import make_encoder as _c_make_encoder
except ImportError:  # pragma: no cover - CPython always has it
    _c_make_encoder = None


def _no_default(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps(doc: Any, ensure_ascii: bool = False) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=ensure_ascii)``, byte for byte, several times
    faster (issue 14: encoding was 55% of ``plan --format json``). The standard library encodes
    an indented document in pure Python, a generator per container; here a container of
    scalars only (most of a plan: line items, capacities) goes through json's own C encoder,
    with ``,\\n<indent>`` as its item separator, and the rest through a small recursive
    function. Strings use json's C ``encode_basestring`` functions; a value json cannot encode
    raises the same ``TypeError``. Unlike ``json.dumps``: NaN and Infinity raise ValueError
    (``allow_nan=False``), and DEL, C1 controls, U+2028/U+2029 and surrogates are ``\\uXXXX``
    escapes (:data:`_UNSAFE`): the text is always encodable as UTF-8."""
    enc = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    parts: list[str] = []
    append = parts.append
    flat: dict[str, Any] = {}  # indent -> C encoder of an all-scalar container at that depth

    def c_encoder(inner: str) -> Any:
        e = flat.get(inner)
        if e is None:
            e = flat[inner] = _c_make_encoder(None, _no_default, enc, None, ": ", "," + inner, False, False, False)
        return e

    scalar_types = _SCALAR_TYPES
    c_ok = _c_make_encoder is not None

    def value(o: Any, indent: str) -> None:
        t = type(o)
        if t is str:
            append(enc(o))
        elif t is dict:
            if not o:
                append("{}")
                return
            inner = indent + "  "
            if c_ok and scalar_types.issuperset(map(type, o.values())) and all(type(k) is str for k in o):
                # Only scalars: json's C encoder, its item separator carrying the indentation.
                text = "".join(c_encoder(inner)(o, 0))
                append("{" + inner + text[1:-1] + indent + "}")
                return
            sep = "{" + inner
            for k, v in o.items():
                append(sep + enc(k if type(k) is str else _key(k)) + ": ")
                sep = "," + inner
                value(v, inner)
            append(indent + "}")
        elif t is list or t is tuple:
            if not o:
                append("[]")
                return
            inner = indent + "  "
            if c_ok and scalar_types.issuperset(map(type, o)):
                text = "".join(c_encoder(inner)(o if t is list else list(o), 0))
                append("[" + inner + text[1:-1] + indent + "]")
                return
            sep = "[" + inner
            for v in o:
                append(sep)
                sep = "," + inner
                value(v, inner)
            append(indent + "]")
        elif o is None:
            append("null")
        elif o is True:
            append("true")
        elif o is False:
            append("false")
        elif t is int:
            append(int.__repr__(o))
        elif t is float:
            append(_float(o))
        elif isinstance(o, str):
            append(enc(o))
        elif isinstance(o, int):
            append(int.__repr__(o))
        elif isinstance(o, float):
            append(_float(o))
        elif isinstance(o, dict):
            value(dict(o), indent)
        elif isinstance(o, (list, tuple)):
            value(list(o), indent)
        else:
            raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    value(doc, "\n")
    out = "".join(parts)
    return out.translate(_UNSAFE_ESCAPES) if _UNSAFE.search(out) else out


def dump(doc: Any, stream: IO[str]) -> None:
    """``doc`` as indented JSON and a newline, in one write; non-ASCII kept unless the stream
    cannot encode it (then ``\\uNNNN (four hex digits)`` escapes: the same document)."""
    stream.write(dumps(doc, ensure_ascii=json_ascii(stream)) + "\n")


def check_document(entries: Sequence[tuple[Diagnostic, Analysis, str]], analyses: Sequence[Analysis], environ: Mapping[str, str]) -> dict[str, Any]:
    """``check --format json``: ``{"format_version", "diagnostics": [...], "summary": {...}}``
    over every analysed runway (``entries``: each diagnostic with its analysis and base)."""
    c = counts([d for d, _, _ in entries])
    return {
        "format_version": FORMAT_VERSION,
        "diagnostics": [diagnostic_json(d, an, base, environ) for d, an, base in entries],
        "summary": {
            "errors": c[Severity.ERROR],
            "warnings": c[Severity.WARNING],
            "information": c[Severity.INFORMATION],
            "hints": c[Severity.HINT],
            "files": sum(file_count(an) for an in analyses),
        },
    }


def environment_digest(env_doc: Mapping[str, Any], product: str | None, region: str | None) -> str:
    """:func:`runway_core.planner.plan_digest` from the environment's JSON
    (:func:`runway_core.planner.environment_json`) when it is already built: sha256 of the
    same canonical JSON (tests/deploy/test_cli_speed.py checks they agree)."""
    canon = {"format_version": FORMAT_VERSION, "product": product, "region": region, "environment": env_doc}
    return hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def plan_document(plan: Plan, an: Analysis, diags: Sequence[Diagnostic], base: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``plan --format json``: :func:`runway_core.planner.plan_json`, each environment with its
    ``plan_digest`` (for ``up --plan-digest``: the plan reviewed is the plan deployed), and the
    diagnostics."""
    doc = plan_json(plan, reveal_secrets=True)
    for env, env_doc in zip(plan.environments, doc["environments"]):
        # The digest of the environment document just built (no second environment_json), then
        # secret-looking env values masked for printing (the digest covers the real values).
        env_doc["plan_digest"] = environment_digest(env_doc, plan.product, plan.region)
        hide_secret_env(env_doc)
        # An item not estimated (an unknown size) counts as 0: the total is a lower bound and
        # the verdict never passes (docs/cli.md, "JSON"). Set after the digest, which is the
        # planner's (`up --plan-digest`); such a runway is invalid (exit 1) anyway. The same
        # fields as the server's runway/plan (runway_core/planner/verdict.py).
        env_doc.update(shown_fields(env))
    doc["diagnostics"] = [diagnostic_json(d, an, base, environ) for d in diags]
    return doc


__all__ = ["check_document", "diagnostic_json", "dump", "dumps", "environment_digest", "plan_document"]
