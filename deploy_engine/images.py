"""The image's platforms, read from its registry before a service is created (issue 24).

A workload declares ``platform: linux/arm64`` (the default) or ``linux/amd64``; Fargate runs the
task on that CPU architecture, and an image without a manifest for it fails every task with
``CannotPullContainerError`` (the circuit breaker then rolls back: ``up`` exit 7). ``preview``
and ``up`` read each image's manifest by its digest from its registry, per the OCI
Distribution Specification (``GET /v2/<name>/manifests/<digest>``, an image index or Docker
manifest list lists ``manifests[].platform``; a single image manifest names a config blob,
``GET /v2/<name>/blobs/<digest>``, whose ``architecture`` and ``os`` say it) and refuse the
deploy when the manifest can be read and lacks the workload's platform.

Registries: a reference's first component is the host when it holds a ``.`` or ``:`` or is
``localhost`` (docker's reference grammar), else Docker Hub (``registry-1.docker.io``, a
one-part name under ``library/``). Anonymous pull tokens are fetched as the Docker token
protocol says (a ``401`` with ``WWW-Authenticate: Bearer realm=...,service=...,scope=...``).
HTTPS only, except a registry on the loopback address (``127.0.0.1``, ``localhost``: a local
mirror, and the tests' fake registry). A private ECR image, a registry that cannot be reached
or asks for credentials, or an unexpected answer is **not checked** (said, never refused):
the check is evidence where it can be had, never a new way for a deploy to fail on the network.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

#: Media types asked for, index types first (OCI image-spec, Docker manifest v2 schema 2).
ACCEPT = ", ".join((
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
))
INDEX_TYPES = ("application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json")
MAX_BYTES = 4 * 1024 * 1024
TIMEOUT_S = 10
DOCKER_HUB = "registry-1.docker.io"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


class RegistryUnreadable(Exception):
    """The manifest could not be read (the message says why); the image is not checked."""


@dataclass(frozen=True)
class ImageRef:
    registry: str  # host[:port]
    repository: str
    digest: str

    @property
    def base_url(self) -> str:
        host = self.registry.rsplit(":", 1)[0] if not self.registry.startswith("[") else self.registry.split("]")[0] + "]"
        scheme = "http" if host in LOOPBACK else "https"
        return f"{scheme}://{self.registry}/v2/{self.repository}"


def parse_image(image: str) -> ImageRef | None:
    """``name@sha256:<64 hex>`` -> its registry, repository and digest; None for anything else."""
    m = re.fullmatch(r"(?P<name>[^@\s]+)@(?P<digest>sha256:[0-9a-f]{64})", image)
    if m is None:
        return None
    name = m["name"]
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, repository = first, rest
    else:
        registry, repository = DOCKER_HUB, name if "/" in name else f"library/{name}"
    if registry in ("docker.io", "index.docker.io"):
        registry = DOCKER_HUB
    # A tag before the digest (`name:1.2@sha256:...`) is ignored by registries: the digest decides.
    repository = re.sub(r":[\w][\w.-]*$", "", repository)
    return ImageRef(registry, repository, m["digest"])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # redirects are followed by hand, without the registry's token


Fetch = Callable[[str, Mapping[str, str]], tuple[int, Mapping[str, str], bytes]]


def http_fetch(url: str, headers: Mapping[str, str]) -> tuple[int, Mapping[str, str], bytes]:
    """GET ``url``: (status, headers, at most :data:`MAX_BYTES` of body); redirects not followed."""
    opener = urllib.request.build_opener(_NoRedirect)
    req = urllib.request.Request(url, headers=dict(headers))
    try:
        with opener.open(req, timeout=TIMEOUT_S) as resp:
            return resp.status, dict(resp.headers), resp.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers or {}), exc.read(MAX_BYTES + 1) if exc.fp is not None else b""
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RegistryUnreadable(f"{urllib.parse.urlsplit(url).netloc}: {getattr(exc, 'reason', exc)}") from None


def _bearer(challenge: str) -> dict[str, str] | None:
    if not challenge.lower().startswith("bearer "):
        return None
    return dict(re.findall(r'(\w+)="([^"]*)"', challenge))


@dataclass
class _Client:
    fetch: Fetch
    tokens: dict[str, str] = field(default_factory=dict)

    def get(self, url: str, accept: str | None = None) -> bytes:
        headers = {"Accept": accept} if accept else {}
        host = urllib.parse.urlsplit(url).netloc
        for attempt in range(2):
            if host in self.tokens:
                headers["Authorization"] = f"Bearer {self.tokens[host]}"
            status, resp_headers, body = self.fetch(url, headers)
            lower = {k.lower(): v for k, v in resp_headers.items()}
            if status == 401 and attempt == 0:
                params = _bearer(lower.get("www-authenticate", ""))
                if not params or not params.get("realm", "").startswith(("https://", "http://127.0.0.1", "http://localhost")):
                    raise RegistryUnreadable(f"{host}: asks for credentials")
                query = urllib.parse.urlencode({k: v for k, v in params.items() if k in ("service", "scope")})
                t_status, _, t_body = self.fetch(params["realm"] + ("?" + query if query else ""), {})
                try:
                    doc = json.loads(t_body)
                    self.tokens[host] = str(doc.get("token") or doc["access_token"])
                except (ValueError, KeyError, TypeError, AttributeError):
                    raise RegistryUnreadable(f"{host}: no anonymous pull token (status {t_status})") from None
                continue
            if status in (301, 302, 303, 307, 308) and lower.get("location"):
                # A blob served from elsewhere (a CDN): fetched without the registry's token.
                status, _, body = self.fetch(urllib.parse.urljoin(url, lower["location"]), {})
            if status != 200:
                raise RegistryUnreadable(f"{host}: HTTP {status}")
            if len(body) > MAX_BYTES:
                raise RegistryUnreadable(f"{host}: answer over {MAX_BYTES // (1024 * 1024)} MiB")
            return body
        raise RegistryUnreadable(f"{host}: refused the anonymous token")


def image_platforms(ref: ImageRef, fetch: Fetch = http_fetch) -> set[str]:
    """The ``os/architecture`` platforms the image at ``ref`` has (``linux/arm64``,
    ``linux/amd64``; an ``arm64`` variant ``v8`` counts as ``linux/arm64``). Raises
    :class:`RegistryUnreadable`."""
    client = _Client(fetch)
    try:
        doc = json.loads(client.get(f"{ref.base_url}/manifests/{ref.digest}", ACCEPT))
    except ValueError:
        raise RegistryUnreadable(f"{ref.registry}: the manifest is not JSON") from None
    if not isinstance(doc, dict):
        raise RegistryUnreadable(f"{ref.registry}: the manifest is not an object")
    if doc.get("mediaType") in INDEX_TYPES or isinstance(doc.get("manifests"), list):
        out = set()
        for m in doc.get("manifests") or ():
            p = m.get("platform") if isinstance(m, dict) else None
            # `unknown/unknown`: BuildKit's attestation manifests, no image to run.
            if isinstance(p, dict) and isinstance(p.get("os"), str) and isinstance(p.get("architecture"), str) and p["os"] != "unknown":
                out.add(f"{p['os']}/{p['architecture']}")
        return out
    config = doc.get("config")
    digest = config.get("digest") if isinstance(config, dict) else None
    if not isinstance(digest, str) or not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        raise RegistryUnreadable(f"{ref.registry}: a manifest without a config digest")
    try:
        cfg = json.loads(client.get(f"{ref.base_url}/blobs/{digest}"))
    except ValueError:
        raise RegistryUnreadable(f"{ref.registry}: the image config is not JSON") from None
    if not isinstance(cfg, dict) or not isinstance(cfg.get("os"), str) or not isinstance(cfg.get("architecture"), str):
        raise RegistryUnreadable(f"{ref.registry}: the image config names no os/architecture")
    return {f"{cfg['os']}/{cfg['architecture']}"}


@dataclass
class PlatformCheck:
    """``problems``: one line per workload whose image lacks its platform (refused);
    ``unchecked``: one line per image that could not be read (said, not refused)."""

    problems: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)


def check_platforms(workloads: Iterable[tuple[str, str, str]], fetch: Fetch = http_fetch) -> PlatformCheck:
    """Check each ``(workload, image, platform)``; the same image is read once."""
    result = PlatformCheck()
    seen: dict[str, set[str] | str] = {}
    for name, image, platform in workloads:
        ref = parse_image(image)
        if ref is None:
            result.unchecked.append(f"{name}: {image!r} is not name@sha256:<digest>")
            continue
        if ".dkr.ecr." in ref.registry:
            result.unchecked.append(f"{name}: a private ECR image (read with the execution role at run time), not checked")
            continue
        if image not in seen:
            try:
                seen[image] = image_platforms(ref, fetch)
            except RegistryUnreadable as exc:
                seen[image] = str(exc)
        found = seen[image]
        if isinstance(found, str):
            result.unchecked.append(f"{name}: the manifest could not be read ({found}), not checked")
        elif platform in found:
            result.checked.append(f"{name}: {platform} found in {', '.join(sorted(found))}")
        else:
            other = ", ".join(sorted(found)) or "no platform"
            result.problems.append(
                f"{name}: the image has {other}, not {platform}: every task would fail to pull (CannotPullContainerError); "
                f"set `platform:` to one the image has, or push a {platform} image")
    return result


__all__ = ["ImageRef", "PlatformCheck", "RegistryUnreadable", "check_platforms", "http_fetch", "image_platforms", "parse_image"]
