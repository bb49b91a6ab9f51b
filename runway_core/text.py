"""Text helpers every layer uses: the closest known word, and credentials kept out of output.

- :func:`suggest`: the closest option to a misspelt word (difflib), for "did you mean".
- :func:`secret_shape`: why a value looks like a credential (by its shape, or by its
  variable's name), for RW144/RW147 and the outline.
- :func:`redact` / :func:`redacted`: every credential-shaped part of a message replaced, so
  that a secret pasted in the wrong place is never quoted back into CI logs, annotations or
  SARIF uploads (docs/reliability.md).

A leaf: imports only the standard library, :mod:`runway_core.diagnostics` and :mod:`runway_core.kinds`.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any, Iterable

from .diagnostics import Diagnostic
from .kinds import REGISTRY


#: (word, options) -> every option with a difflib ratio >= 0.6 to word, closest first: what
#: :func:`close_names` found. Bounded: emptied past :data:`_CLOSE_MEMO_SIZE` entries.
_CLOSE_MEMO: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
_CLOSE_MEMO_SIZE = 4096


def close_names(word: str, options: Iterable[str]) -> tuple[str, ...]:
    """Every option whose difflib ratio to ``word`` is at least 0.6, closest first (difflib's
    order). Remembered per (word, options): every keystroke's analysis asks again for every
    unknown name it still holds, and a product of 1,201 names with 400 misspelt ``uses``
    items spent 22 s in difflib per analysis (round 3, a fresh reviewer)."""
    opts = tuple(options)
    key = (word, opts)
    hit = _CLOSE_MEMO.get(key)
    if hit is None:
        hit = tuple(difflib.get_close_matches(word, opts, n=len(opts) or 1, cutoff=0.6))
        if len(_CLOSE_MEMO) >= _CLOSE_MEMO_SIZE:
            _CLOSE_MEMO.clear()
        _CLOSE_MEMO[key] = hit
    return hit


def suggest(word: str, options: Iterable[str], prefer: Iterable[str] = ()) -> str | None:
    """The closest option to ``word`` (difflib ratio >= 0.6), or None. Among options as close
    as the closest, one in ``prefer`` wins (difflib alone breaks ties by the larger string:
    ``us-east-9`` would be ``us-east-2`` rather than the priced ``us-east-1``)."""
    m = close_names(word, options)
    if not m:
        return None
    preferred = set(prefer)
    if preferred:
        best = _ratio(word, m[0])
        for cand in m:
            if _ratio(word, cand) < best:
                break
            if cand in preferred:
                return cand
    return m[0]


def _ratio(a: str, b: str) -> float:
    sm = difflib.SequenceMatcher()
    sm.set_seqs(b, a)  # as get_close_matches scores: seq2 is the word
    return sm.ratio()


#: The shapes, each as (why, pattern, hints, case_blind). ``hints``: literals one of which a
#: match must contain (lower case for the case-blind shapes), or None: ``str.__contains__``
#: skips a shape in a fraction of its regex scan, so :func:`redact` (every CLI write, every
#: server message) mostly costs the shapes without a literal. One alternation of every shape
#: was measured 15x slower than the shapes one by one (Python's ``re`` tries each branch at
#: each position), so there is none.
#:
#: Each pattern runs in linear time on any text (redact() sees every diagnostic message, and a
#: hostile file quotes 1 MB values): a match can start only at a literal prefix or where a run
#: of the pattern's characters starts, every open-ended part is bounded or followed by nothing
#: that could make it backtrack, and the scan of one start stops before the next start.
#:
#: Boundaries. A token with a long, distinctive vendor prefix (`ghp_`, `glpat-`, `AKIA`,
#: `npm_`, `xoxb-`, `pul-`, `hvs.` ...) matches even glued to a preceding character
#: (`xghp_…`, `1AKIA…`, `FOO=ghp_…`): no ordinary word holds such a prefix followed by its
#: token's length of token characters. A short prefix that ordinary words end with (`sk-` in
#: "desk-…", `hf_` in "shelf_…", `SG.`, `AIza`, `eyJ`, `Basic`, `Bearer`, `sk_live_`) keeps
#: its lookbehind. The lone 40-character AWS secret key may follow `=`, `:`, `-`, `_` or `.`
#: (`FOO=wJalr…`), not a letter, digit, `+` or `/` (a 41-character run is some other base64,
#: unless its line names a key: :func:`redact_glued_keys`).
#:
#: The vendor families follow the two well-kept public rule sets: Yelp's detect-secrets plugins
#: (AWS, Azure storage, Basic auth, GitHub, GitLab, JWT, npm, OpenAI, PyPI, SendGrid, Slack,
#: Stripe, Twilio, private keys, keyword) and gitleaks' rules (config/gitleaks.toml: pulumi-api-token
#: `pul-[a-f0-9]{40}`, vault-service-token `hvs.`, vault-batch-token `hvb.`, gcp OAuth `ya29.`,
#: digitalocean `dop_v1_`/`doo_v1_`/`dor_v1_`, pypi-upload-token, age-secret-key,
#: huggingface `hf_`, shopify `shpat_`/`shpss_`/`shpca_`/`shppa_`, slack-webhook-url,
#: slack-*-token `xox[bpas]-`/`xoxe.`, linear `lin_api_`, databricks `dapi`); Infisical service
#: tokens (`st.<uuid>.<hex>.<hex>`) and AWS STS session tokens (base64 of a protobuf that
#: always starts `FwoGZXIvYXdz` or `IQoJb3JpZ2lu`) after their issuers' documented formats.
#: Injected variable names (round 3). A resource or workload name is a DNS label, and a
#: consumer receives ``<NAME>_<SUFFIX>`` variables (``glpat-abc…`` -> ``GLPAT_ABC…_URL``,
#: runway_core.planner.spec.env_prefix: upper case, ``-`` -> ``_``), which hover, the plan, the
#: code lenses and the CLI show. Each family whose token can be a DNS label (a fixed lower-case
#: prefix, a body of letters, digits and ``-``: GitLab, OpenAI, Slack, Pulumi, Databricks) also
#: matches in that form, with the same prefix and minimum length and a body that stops before
#: the injected suffix, so that ``<redacted>_URL`` still says which variable it is. The suffixes
#: are those of docs/format.md "Uses and injected variables": every kind's
#: (:attr:`runway_core.kinds.Kind.variables`), each once, in declaration order. Linear: each
#: step of the body looks ahead at most 9 characters.
INJECTED_SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(v for k in REGISTRY for v in k.variables))
_VAR_BODY = r"(?:[A-Z0-9]|_(?!(?:" + "|".join(INJECTED_SUFFIXES) + r")(?![A-Za-z0-9_])))"

#: What a secret-looking value is replaced with in a message (RW144/RW147 say where it is).
REDACTED = "<a value that looks like a secret>"
#: A URL's user part already redacted by an earlier shape (a token as the user name, `s3://AKIA...:pw@`,
#: round 5 A03): the URL shapes take it as user characters, so that the password goes too. It starts
#: with `<`, no user character, so the scan stays linear.
_REDACTED_USER = re.escape(REDACTED)

#: A compact ISO 8601 UTC time to the minute (`20261203T1829`), as the records store names
#: receipts: a 40-character run holding one is a path, not an AWS secret access key.
_ISO_TIME = r"[0-9]{8}T[0-9]{4}"

_SHAPES: tuple[tuple[str, str, tuple[str, ...] | None, bool], ...] = (
    ("an AWS access key id",
     r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])",
     ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "A3T"), False),
    # The whole block, BEGIN line and base64 body (and END line when there): quoting only the
    # body is as bad as quoting the key. `\n` is a line break as a message may quote it, and
    # `\\n` as JSON inside a JSON string (an ECS container definition) quotes it.
    ("a private key",
     r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s]|\\{1,4}[nr]){0,65536}(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
     ("-----BEGIN ",), False),
    ("a GitHub token", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), False),
    ("a GitLab token", r"(?:gl(?:pat|dt|rt|ptt|cbt|imt|agent|oas)-[A-Za-z0-9_-]{20,}|GL(?:PAT|DT|RT|PTT|CBT|IMT|AGENT|OAS)_" + _VAR_BODY + "{20,})",
     ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glagent-", "gloas-",
      "GLPAT_", "GLDT_", "GLRT_", "GLPTT_", "GLCBT_", "GLIMT_", "GLAGENT_", "GLOAS_"), False),
    ("an npm token", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", ("npm_",), False),
    ("a SendGrid API key", r"(?<![A-Za-z0-9_.-])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", ("SG.",), False),
    # `sk-` after a letter, digit or `_` is part of a word ("desk-…", "task-…"); after a `-` it
    # starts one: the AWS names of a workload named so (`orders-dev-sk-…`, `runway-deploy resources`).
    ("an OpenAI API key", r"(?:(?<![A-Za-z0-9_])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}|(?<![A-Za-z0-9])SK_" + _VAR_BODY + "{32,})",
     ("sk-", "SK_"), False),
    ("a Slack webhook URL", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{16,}", ("hooks.slack.com/",), False),
    # Upper-cased too, with `-` (`XOXB-…`, round 4: a token pasted in capitals) or `_` (a
    # variable name, round 3).
    ("a Slack token", r"(?:x(?:ox(?:e\.xox)?[abposre]|app)-[A-Za-z0-9-]{10,}|X(?:OX(?:E\.XOX)?[ABPOSRE]|APP)-[A-Z0-9-]{10,}"
     r"|X(?:OX[ABPOSRE]|APP)_" + _VAR_BODY + "{10,})",
     ("xox", "xapp-", "XOX", "XAPP_", "XAPP-"), False),
    ("a Stripe secret key", r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", ("_live_", "_test_"), False),
    ("a Stripe webhook secret", r"whsec_[A-Za-z0-9+/=]{20,}", ("whsec_",), False),
    ("a Google API key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}", ("AIza",), False),
    ("a Google OAuth access token", r"ya29\.[0-9A-Za-z_-]{20,}", ("ya29.",), False),
    # The signature may be short or empty (`alg: none`, an unsigned token is still a bearer
    # credential): gitleaks' jwt rule makes it optional too.
    ("a JSON Web Token", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]*", ("eyJ",), False),
    ("a Pulumi access token", r"(?:pul-[a-f0-9]{40}|PUL_[A-F0-9]{40})(?![A-Fa-f0-9])", ("pul-", "PUL_"), False),
    ("an Infisical service token",
     r"st\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.[0-9a-fA-F]{32}\.[0-9a-fA-F]{32}",
     ("st.",), False),
    ("a HashiCorp Vault token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr."), False),
    # STS session tokens are base64 of a protobuf: a varying first byte, then 0x0a and the
    # length of `aws` / `er/aws` / `origin...`, so the first two characters vary (`AQoDYXdz…`,
    # the AWS docs' own example; `FQoGZXIvYXdz…`, `FwoGZXIvYXdz…`, `IQoJb3JpZ2lu…`, `IgoJb3JpZ2lu…`).
    ("an AWS session token", r"[A-Za-z0-9+/]{2}o(?:DYXdz|GZXIvYXdz|Jb3JpZ2lu)[A-Za-z0-9+/=]{16,}",
     ("oDYXdz", "oGZXIvYXdz", "oJb3JpZ2lu"), False),
    ("an Azure storage key", r"(?:Account|SharedAccess)Key=[A-Za-z0-9+/]{20,}={0,2}", ("AccountKey=", "SharedAccessKey="), False),
    ("a DigitalOcean token", r"do[por]_v1_[a-f0-9]{64}", ("_v1_",), False),
    ("a PyPI upload token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{16,}", ("pypi-AgEIcHlwaS5vcmc",), False),
    ("an age secret key", r"AGE-SECRET-KEY-1[0-9A-Z]{20,}", ("AGE-SECRET-KEY-1",), False),
    ("a Hugging Face token", r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}", ("hf_",), False),
    ("a Shopify token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", ("shpat_", "shpss_", "shpca_", "shppa_"), False),
    ("a Linear API key", r"lin_api_[A-Za-z0-9]{40}", ("lin_api_",), False),
    ("a Databricks token", r"(?:(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-[0-9])?|(?<![A-Za-z0-9])DAPI[A-F0-9]{32}(?:_[0-9])?)",
     ("dapi", "DAPI"), False),
    # `scheme://user:password@`: the user may be empty (`redis://:pw@h`), the password may hold
    # `/` (`//` too: base64 has it, round 4), `+`, `:` or `@` (it runs to the last `@` before a
    # space, a quote or another URL's `://`); not a
    # port followed by a path (`https://h:8080/@scope/pkg` is no password), nor an already
    # redacted one (`[redacted]`, `<...>`, `***`) or a `${...}` reference. First tried: a
    # password of words separated by single spaces (`app:my secret pw@db`, `app:p@ss word@db`;
    # round 3), up to the last `@` of at most 17 words on the line, none holding `/` (so that
    # `u:pw@db:5432/x and a@b.com` is the password `pw`), neither starting nor ending with a
    # space (`https://h.example.com: write to ops@example.com` is prose). When the line holds a
    # URL password and, words later, an e-mail address, the words between are redacted too:
    # more hidden, never less.
    ("a URL with a password in it",
     r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://(?:[^\s/:@\"'<>`]|" + _REDACTED_USER + r"){0,256}:(?![0-9]{1,5}(?:/|$)|[\[<*]|\$\{)"
     r"(?:[^\s\"'<>`/]{1,256}(?: [^\s\"'<>`/]{1,256}){1,16}@|(?:[^\s\"'<>`/:]|:(?!//)|/){1,256}@)",
     ("@",), True),  # not "://": every message names a file:// URI
    # `user:password@registry/...` without a scheme (a Docker image reference, a git remote):
    # starts at the text's start or after a space, quote, backtick or bracket (none of which a
    # password here holds, so one start's scan ends before the next); the host has a dot, a
    # port or a path (`admin:pw@metabase/metabase:v1`, a registry on the local network: third
    # adversary, round 5), or is an IPv6 literal (`[fd00::1]`); the password may hold `@` (up to
    # the last one before such a host); a bare host name alone (`admin:pw@metabase`) takes a
    # password of 8 or more characters, so `a:b@c` stays prose (fourth adversary). Not `name:tag@sha256:…` (an image digest) nor `mailto:`.
    ("an address with a password in it (user:password@host)",
     r"(?:(?<=[\s\"'`<>(\[{])|^)(?!mailto:)(?:[A-Za-z0-9._~%+-]|" + _REDACTED_USER + r"){1,256}:"
     r"(?:[^\s@/\"'`<>()\[\]{}]{1,256}@(?:[^\s@/\"'`<>()\[\]{}]{1,256}@){0,8}(?!sha[0-9]{3}:)"
     r"(?=[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]|:[0-9]|/[A-Za-z0-9_.-])|\[[0-9A-Fa-f:.]{2,45}\])"
     r"|[^\s@/\"'`<>()\[\]{}]{8,256}@(?!sha[0-9]{3}:)(?=[A-Za-z0-9-]{1,63}(?:[\s\"'`<>)\]},;]|$)))",
     ("@",), False),
    # JDBC (`jdbc:postgresql://h/db?user=u&password=p`), ADO.NET (`...;Password=p;`), ODBC `Pwd=`;
    # not an already redacted value (`[redacted]`, `<...>`, `***`) nor a `${...}` reference.
    ("a connection string with a password",
     r"(?<![A-Za-z0-9_])(?:password|passwd|pwd)=(?![\[<*$])[^;&\s\"'<>]{1,256}", ("password=", "passwd=", "pwd="), True),
    # `password: p` (a pasted YAML or header line) when `p` holds a digit or a symbol, so that
    # prose ("the admin password: a step") is not taken for one; it ends at a `:` (so that the
    # scan from one `password:` stops at the next).
    ("a connection string with a password",
     r"(?<![A-Za-z0-9_])(?:password|passwd):[ \t]{0,4}(?![\[<*$])(?=[^;&:\s\"'<>`]{0,255}[0-9!#%+/=?@^_~-])[^;&:\s\"'<>`]{1,256}",
     ("password:", "passwd:"), True),
    # A token in a URL's query string (issue 23): OAuth's `access_token` (RFC 6750 §2.3), a
    # presigned URL's `X-Amz-Security-Token`/`X-Amz-Signature`/`X-Amz-Credential` (Amazon S3
    # API Reference, "Authenticating Requests: Using Query Parameters"), an Azure SAS `sig`,
    # any `*token`, `*secret`, `*signature`, `*api_key`; after `?`, `&` or `;` only (a query
    # parameter, not prose), not an already redacted value nor a `${...}` reference. The name's
    # prefix is bounded (40 characters), so each start scans a bounded stretch: linear.
    ("a URL with a token in its query string",
     r"(?<=[?&;])(?:[a-z0-9_.-]{0,40}(?:token|secret|signature|api_?key|apikey)|sig|x-amz-credential)=(?![\[<*$])[^&#;\s\"'<>`]{1,4096}",
     ("token=", "secret=", "signature=", "key=", "sig=", "x-amz-credential="), True),
    # HTTP Basic credentials: `Basic ` and base64 that holds a digit, `+`, `/`, `=` or a capital
    # past its first letter (so that prose such as "Basic Authentication" is not taken for one).
    ("a Basic-auth credential",
     r"(?<![A-Za-z])Basic\s{1,8}(?=[A-Za-z0-9+/]{0,512}[0-9+/=]|[A-Za-z0-9+/]{1,512}[A-Z])[A-Za-z0-9+/]{8,512}={0,2}(?![A-Za-z0-9+/=])",
     ("Basic",), False),
    # A bearer token: `Bearer ` and a token that holds a digit, `+`, `/`, `_`, `-` or a capital
    # past its first letter ("Bearer tokens expire." is prose; a `.` does not count).
    ("a bearer token",
     r"(?<![A-Za-z])[Bb]earer\s{1,8}(?=[A-Za-z0-9._~+/-]{0,1024}[0-9_+/-]|[A-Za-z0-9._~+/-]{1,1024}[A-Z])[A-Za-z0-9._~+/-]{8,4096}={0,2}",
     ("Bearer", "bearer"), False),
    # An AWS secret access key, in context (`aws_secret_access_key = ...`; with up to two
    # characters glued to it, as redact_glued_keys takes) ...
    ("an AWS secret access key",
     r"(?<![A-Za-z0-9_])(?:aws_?)?secret_?access_?key[\"']?\s{0,8}[:=]\s{0,8}[\"']?[A-Za-z0-9+/]{40,42}",
     ("secret_access", "secretaccess"), True),
    # ... or alone: exactly 40 base64 characters mixing upper and lower case with a digit, `+`
    # or `/`. Runway values of 40 characters are lower-case hex (git SHAs) or names (no `+`,
    # `/` and one case); image digests have 64 hex digits: none match.
    # Not a run holding a compact ISO 8601 UTC time (`20261203T182919`): the store's own record
    # paths (`runway/receipts/training/20261203T182919`, 40 characters for an 8-letter
    # environment) were shown as secrets (sixth adversary F9). A random key holds twelve
    # digits around a `T` with odds of about 1e-10.
    ("an AWS secret access key",
     r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]{0,39}[A-Z])(?=[A-Za-z0-9+/]{0,39}[a-z])(?=[A-Za-z0-9+/]{0,39}[0-9+/])"
     r"(?![A-Za-z0-9+/]{0,27}" + _ISO_TIME + r")[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_-])", None, False),
)

#: For each shape of :data:`SECRET_VALUE_SHAPES` (same order): (hints, case_blind).
_HINTS: tuple[tuple[tuple[str, ...] | None, bool], ...] = tuple((hints, blind) for _why, _rx, hints, blind in _SHAPES)
assert _HINTS[-1][0] is None and all(h is not None for h, _ in _HINTS[:-1])


@functools.cache
def _compiled() -> tuple[tuple[tuple[str, re.Pattern[str]], ...], tuple[tuple[str, re.Pattern[str], tuple[str, ...] | None, bool], ...], re.Pattern[str]]:
    """(:data:`SECRET_VALUE_SHAPES`, what :func:`value_shape` loops over: (why, pattern,
    hints, case_blind) per shape, the lone AWS key's pattern: the one shape without a literal
    hint). Compiled on first use, not at import: ~12 ms of the language server's start-up,
    before ``initialize`` is answered (issue 16 item 9), for a recogniser first needed by the
    first diagnostics."""
    shapes = tuple((why, re.compile(rx, re.IGNORECASE if blind else 0)) for why, rx, _hints, blind in _SHAPES)
    plan = tuple((why, pattern, hints, blind) for (why, pattern), (hints, blind) in zip(shapes, _HINTS))
    return shapes, plan, shapes[-1][1]


def __getattr__(name: str) -> Any:
    """``SECRET_VALUE_SHAPES`` (values that are credentials whatever their variable is called:
    (why, compiled pattern), in the order :func:`redact` applies them), ``_PLAN`` and
    ``_LONE_KEY``: compiled on first use (PEP 562)."""
    if name == "SECRET_VALUE_SHAPES":
        return _compiled()[0]
    if name == "_PLAN":
        return _compiled()[1]
    if name == "_LONE_KEY":
        return _compiled()[2]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Variable names that say their value is a credential (`DB_PASSWORD`, `STRIPE_API_KEY`,
#: `DB_PASS`, `DB_PWD`, `ENCRYPTION_KEY`, `SECRET_KEY_BASE`, `PRIVATE_KEY_PEM`, `SENTRY_DSN`,
#: `DATABASE_URL`, ...; detect-secrets' keyword plugin and gitleaks' generic-api-key rule look
#: for the same words). `PASS`/`PWD` only after `_` (not `BYPASS`, `COMPASS`, nor the shell's
#: `PWD`); any `*_KEY` except the names of keys that are not secrets (:data:`PUBLIC_KEY_NAME`).
SECRET_NAME = re.compile(
    r"(?:PASSWORD|PASSWD|PASSPHRASE|_PASS|_PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|SIGNING_?KEY"
    r"|(?:^|_)KEY|CREDENTIALS?|SECRET_KEY_BASE|PRIVATE_KEY_(?:PEM|B64|BASE64)|(?:^|_)DSN|(?:^|_)BEARER"
    r"|(?:^|_)DATABASE_URL|(?:^|_)DB_URL)$", re.IGNORECASE)

#: `*_KEY` names whose value is no credential: a public or publishable key, a KMS key's id, a
#: DynamoDB or cache key name, an S3 object key, a routing key.
PUBLIC_KEY_NAME = re.compile(
    r"(?:^|_)(?:PUBLIC|PUBLISHABLE|PUB|KMS|PARTITION|SORT|HASH|RANGE|PRIMARY|CACHE|OBJECT|S3|ROUTING|IDEMPOTENCY|FEATURE|LICENSE_PUBLIC)_KEY$",
    re.IGNORECASE)

#: Names whose value is a URL that is a credential even without a password (a Sentry DSN's key
#: is its user part): the "a URL is fine" exception of :func:`secret_shape` does not apply.
_DSN_NAME = re.compile(r"(?:^|_)DSN$", re.IGNORECASE)



#: A superset of the hint-less shape (the lone AWS secret key): the same 40-character run
#: between the same boundaries, without its three case lookaheads. Three times faster than the
#: shape on text with no candidate (benchmarks/bench_redaction.py), still linear: a match can
#: start only where a run starts.
_LONE_KEY_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_-])")

#: A 40-character AWS secret access key glued to one character before or after it (a 41- or
#: 42-character run: `xwJalr…`, `1wJalr…`, `/wJalr…`), which the lone-key shape leaves (a run
#: that long is as likely some other base64). Taken for a key only on a line that names one:
#: :data:`_KEY_CONTEXT`, as Yelp's detect-secrets AWSKeyDetector (``aws.{0,20}?(?:key|pwd|pw|
#: password|pass|token).{0,20}?['"]([0-9a-zA-Z/+]{40})['"]``, case-blind) and gitleaks (its
#: ``aws-secret-access-key`` is a sub-rule: a ``\b``-bounded 40-character run, entropy >= 3,
#: reported only beside an access key id) also ask for context; neither takes a glued run at
#: all. Without a word of context the glued run is not redacted (docs/reliability.md). The
#: same three case lookaheads as the lone key; linear (a match starts only where a run does).
_GLUED_KEY = re.compile(
    r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]{0,41}[A-Z])(?=[A-Za-z0-9+/]{0,41}[a-z])(?=[A-Za-z0-9+/]{0,41}[0-9+/])"
    r"(?![A-Za-z0-9+/]{0,29}" + _ISO_TIME + r")[A-Za-z0-9+/]{41,42}(?![A-Za-z0-9+/=_-])")
#: Its superset without the lookaheads: the cheap test of whether a text holds a candidate.
_GLUED_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{41,42}(?![A-Za-z0-9+/=_-])")
#: Words (lower case) that make a line name a key; the redaction placeholder itself does not.
_KEY_CONTEXT = ("aws", "secret", "key", "access", "token", "passw", "pwd", "credential")
_REDACTED_LOWER = REDACTED.lower()
#: What :func:`value_shape` says of a text whose only credential is such a glued key.
_GLUED_WHY = "an AWS secret access key (next to a word that names a key)"


def _key_context(line: str) -> bool:
    low = line.lower()
    if _REDACTED_LOWER in low:
        low = low.replace(_REDACTED_LOWER, " ")
    for word in _KEY_CONTEXT:
        if word in low:
            return True
    return False


def redact_glued_keys(text: str) -> str:
    """``text`` with every :data:`_GLUED_KEY` run on a line that names a key (:data:`_KEY_CONTEXT`)
    replaced by :data:`REDACTED`; the same object when none is. The last step of
    :func:`redact`. Linear: one split, each line's words checked once."""
    if len(text) < 41 or _GLUED_RUN.search(text) is None:
        return text
    lines = text.split("\n")
    changed = False
    for i, line in enumerate(lines):
        # the words around the run, not in it (`…EXAMPLEKEY` names no key)
        if len(line) >= 41 and _GLUED_KEY.search(line) and _key_context(_GLUED_RUN.sub(" ", line)):
            lines[i] = _GLUED_KEY.sub(REDACTED, line)
            changed = True
    return "\n".join(lines) if changed else text


#: Strings :func:`redact` found clean, so that the server does not scan again the same
#: diagnostics, lenses and hints it sends on every keystroke. Bounded: strings up to
#: ``_MEMO_CHARS`` characters, ``_MEMO_SIZE`` of them (at most ~16 MB), emptied when full.
#: Only clean strings are kept: the shapes are fixed at import, so clean stays clean.
_CLEAN: dict[str, None] = {}
#: No match of any shape is shorter (`pwd=x`, a connection string's password).
_SHORTEST = 5
_MEMO_CHARS = 1024
_MEMO_SIZE = 16384


#: A Pulumi resource type token, ``package:module/member:Type`` (``aws:s3/bucketServerSide
#: EncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2``; Pulumi's docs,
#: "Resource types": a token's module path and type name), alone or inside a URN. Its
#: ``module/member`` (44 characters there) and its type name (41) are long base64-like runs,
#: which the glued-key shape took for AWS secret keys on a line naming ``aws``: a deploy
#: review showed ``aws:<a value that looks like a secret>:…`` as a resource's type (eighth
#: adversary F7). Such a token is kept as it is; what is around it is redacted as ever. The
#: ``/`` makes it a token, not any ``a:b:C`` (a host, port and password).
_PULUMI_TYPE = re.compile(r"(?<![A-Za-z0-9+/=_.-])[a-z][a-z0-9-]{0,40}:[a-z0-9]{1,40}/[a-z][A-Za-z0-9]{0,100}:[A-Z][A-Za-z0-9]{0,100}"
                          r"(?![A-Za-z0-9+/=_-])")


def _type_token_pieces(text: str) -> list[tuple[str, bool]] | None:
    """``text`` cut into (piece, is a Pulumi type token) pairs, or None when it holds no token
    (the common case: one ``in`` test each for ``:`` and ``/``)."""
    if ":" not in text or "/" not in text:
        return None
    pieces: list[tuple[str, bool]] = []
    at = 0
    for m in _PULUMI_TYPE.finditer(text):
        pieces.append((text[at:m.start()], False))
        pieces.append((m.group(), True))
        at = m.end()
    if not pieces:
        return None
    pieces.append((text[at:], False))
    return pieces


def redact(text: str) -> str:
    """``text`` with every credential-shaped part (:data:`SECRET_VALUE_SHAPES`) replaced by
    :data:`REDACTED`: a diagnostic quotes what the user wrote (an unknown name, a wrong
    value), and a credential pasted in the wrong place must not be quoted back into CI logs,
    annotations or SARIF uploads.

    The same text as running every shape's ``sub`` in order, then :func:`redact_glued_keys`
    (tests/deploy/test_cli_speed.py checks it on random and hostile inputs), which it does
    only when :func:`value_shape` finds a shape: that skips a shape where its literal hint is
    not (a ``str.__contains__``), the lone AWS secret key where no 40-character run is, and a
    short string already found clean. Linear in ``len(text)``. A Pulumi type token
    (:data:`_PULUMI_TYPE`) is kept whole."""
    if value_shape(text) is None:  # most texts: skipped by hints, or found clean before
        return text
    pieces = _type_token_pieces(text)
    if pieces is not None:
        return "".join(piece if token else redact(piece) for piece, token in pieces)
    for _why, pattern in _compiled()[0]:
        text = pattern.sub(REDACTED, text)
    return redact_glued_keys(text)
    return text


def redact_doc(doc: Any, keep: frozenset[str] = frozenset()) -> Any:
    """``doc`` (JSON-shaped: dicts, lists, tuples, strings, numbers) with every string passed
    through :func:`redact`, keys included, except the values of the keys in ``keep`` (the
    server keeps ``newText``: an edit must write what the user wrote, and ``uri``: the
    client's handle of a file); the same object when nothing changed (no copy).

    A first walk only asks whether every string is clean (most messages: no copy, and no
    scan of a string the memo of :func:`redact` knows); the copying walk runs only when one
    is not."""
    if _clean_doc(doc, keep):
        return doc
    return _redact_doc(doc, keep)


def _clean_doc(doc: Any, keep: frozenset[str]) -> bool:
    """Whether :func:`redact` leaves every string of ``doc`` (keys too, not ``keep``'s values)
    as it is. One loop over an explicit stack (no call per node): an outline of thousands of
    symbols is walked on every keystroke."""
    clean = _CLEAN
    stack = [doc]
    pop, push = stack.pop, stack.append
    while stack:
        d = pop()
        t = type(d)
        if t is dict:  # its keys here, its values as a list below
            values = []
            for k, v in d.items():
                if k in keep:
                    continue
                if type(k) is str and len(k) >= _SHORTEST and k not in clean and redact(k) is not k:
                    return False
                values.append(v)
            d, t = values, list
        if t is list or t is tuple:
            for v in d:
                tv = type(v)
                if tv is str:
                    if len(v) >= _SHORTEST and v not in clean and redact(v) is not v:
                        return False
                elif tv is dict or tv is list:
                    push(v)
                elif not (tv is int or v is None or tv is bool or tv is float):
                    push(v)
        elif t is str:
            if len(d) >= _SHORTEST and d not in clean and redact(d) is not d:
                return False
        elif isinstance(d, (str, dict, list, tuple)):  # a subclass (a str enum): the copying walk decides
            if _redact_doc(d, keep) is not d:
                return False
    return True


def _redact_doc(doc: Any, keep: frozenset[str]) -> Any:
    if isinstance(doc, str):
        return redact(doc)
    if isinstance(doc, dict):
        changed = False
        out = {}
        for k, v in doc.items():
            if isinstance(k, str) and k in keep:
                out[k] = v
                continue
            k2 = redact(k) if isinstance(k, str) else k
            v2 = _redact_doc(v, keep)
            changed = changed or k2 is not k or v2 is not v
            out[k2] = v2
        return out if changed else doc
    if isinstance(doc, (list, tuple)):
        items = [_redact_doc(v, keep) for v in doc]
        return type(doc)(items) if any(a is not b for a, b in zip(doc, items)) else doc
    return doc


def redacted(d: Diagnostic) -> Diagnostic:
    """``d`` with its message and ``data`` strings passed through :func:`redact`."""
    msg = redact(d.message)
    data = d.data
    if data:
        data = redact_doc(data)  # lists of names too (`data.names`, `data.members`)
    if msg is d.message and data is d.data:
        return d
    return Diagnostic(d.file, d.range, d.severity, d.code, msg, data, d.tags)


def value_shape(text: str) -> str | None:
    """Why ``text`` holds a credential-shaped part: the phrase of the first shape of
    :data:`SECRET_VALUE_SHAPES` that matches anywhere in it (what ``pattern.search`` over the
    shapes in order would say), else that of a glued AWS key (:func:`redact_glued_keys`), or
    None.

    Skipped the way :func:`redact` skips (a shape only where its literal hint is, the lone AWS
    secret key only where a 40-character run is, a short string already found clean not
    scanned again): RW147 asks this of every `env` value and size of every keystroke's
    analysis, ~1,400 strings on the 3,218-line benchmark workspace, which cost 35 regex scans
    each (a quarter of the analysis, issue 16 item 10). Linear in ``len(text)``."""
    if len(text) < _SHORTEST:
        return None
    memo = len(text) <= _MEMO_CHARS
    if memo and text in _CLEAN:
        return None
    pieces = _type_token_pieces(text)
    if pieces is not None:  # a Pulumi type token is no credential (_PULUMI_TYPE)
        return next((why for piece, token in pieces if not token and (why := value_shape(piece)) is not None), None)
    lower: str | None = None
    _shapes, plan, lone_key = _compiled()
    for why, pattern, hints, blind in plan:
        if hints is not None:
            if blind:
                if lower is None:
                    lower = text.lower()
                hay = lower
            else:
                hay = text
            for h in hints:
                if h in hay:
                    break
            else:
                continue
        elif pattern is lone_key and _LONE_KEY_RUN.search(text) is None:
            continue
        if pattern.search(text):
            return why
    if redact_glued_keys(text) is not text:
        return _GLUED_WHY
    if memo:
        if len(_CLEAN) >= _MEMO_SIZE:
            _CLEAN.clear()
        _CLEAN[text] = None
    return None


def secret_shape(name: str, value: object) -> str | None:
    """Why an `env` value looks like a secret (a phrase for messages), or None.

    By shape (an AWS access key id, a private key, a token with a vendor prefix, a URL with a
    password) whatever the name; or by name (:data:`SECRET_NAME`: `*_PASSWORD`, `*_PASS`,
    `*_PWD`, `*_TOKEN`, `*_SECRET`, `*_KEY` but :data:`PUBLIC_KEY_NAME`, `*_DSN`,
    `DATABASE_URL`, ...) when the value is a non-empty string that is not a path, an ARN, a Stripe publishable key (`pk_…`), a URL
    (for a `*_DSN`: a URL without a user part) or a `${...}` reference.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    why = value_shape(value)
    if why is not None:
        return why
    v = value.strip()
    if not SECRET_NAME.search(name) or PUBLIC_KEY_NAME.search(name):
        return None
    if v.startswith(("${", "$(")):
        return None
    if _DSN_NAME.search(name) and "@" in v:
        return f"its name, `{name}`, says it is a credential"
    if not (v.startswith(("/", "./", "arn:", "pk_live_", "pk_test_")) or "://" in v):  # pk_: Stripe's public key
        return f"its name, `{name}`, says it is a credential"
    return None


__all__ = ["suggest", "close_names", "SECRET_VALUE_SHAPES", "SECRET_NAME", "PUBLIC_KEY_NAME", "REDACTED", "INJECTED_SUFFIXES", "redact", "redact_doc",
           "redact_glued_keys", "redacted", "secret_shape", "value_shape"]
