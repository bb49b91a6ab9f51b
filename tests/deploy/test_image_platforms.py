"""The image's platforms read from its registry at preview/up (deploy_engine.images; issue 24).

The fake registry on 127.0.0.1 answers as the OCI Distribution Specification says
(distribution-spec ``spec.md``, "Pulling manifests": ``GET /v2/<name>/manifests/<reference>``
with the ``Accept`` media types; "Pulling blobs": ``GET /v2/<name>/blobs/<digest>``) with the
image-spec's documents (``image-index.md``: ``manifests[].platform.{architecture, os, variant}``;
``config.md``: ``architecture``, ``os``), behind the Docker token protocol (a ``401`` with
``WWW-Authenticate: Bearer realm="…",service="…",scope="repository:<name>:pull"``, a token
from the realm, then ``Authorization: Bearer <token>``), as Docker Hub serves them.
"""

from __future__ import annotations

import hashlib
import json
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from deploy_engine.images import check_platforms, image_platforms, parse_image

TOKEN = "anonymous-pull-token"


def _digest(doc: Any) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(doc).encode()).hexdigest()


CONFIG_AMD64 = {"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}
SINGLE = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
          "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": _digest(CONFIG_AMD64), "size": 1}, "layers": []}
INDEX_AMD64 = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": _digest(SINGLE), "size": 1,
     "platform": {"architecture": "amd64", "os": "linux"}},
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + "0" * 64, "size": 1,
     "platform": {"architecture": "unknown", "os": "unknown"}},  # a BuildKit attestation entry
]}
LIST_BOTH = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.list.v2+json", "manifests": [
    {"mediaType": "application/vnd.docker.distribution.manifest.v2+json", "digest": "sha256:" + "1" * 64, "size": 1,
     "platform": {"architecture": "amd64", "os": "linux"}},
    {"mediaType": "application/vnd.docker.distribution.manifest.v2+json", "digest": "sha256:" + "2" * 64, "size": 1,
     "platform": {"architecture": "arm64", "os": "linux", "variant": "v8"}},
]}
MANIFESTS = {_digest(INDEX_AMD64): INDEX_AMD64, _digest(LIST_BOTH): LIST_BOTH, _digest(SINGLE): SINGLE}
BLOBS = {_digest(CONFIG_AMD64): CONFIG_AMD64}


class Registry(BaseHTTPRequestHandler):
    seen: list[tuple[str, str | None]] = []

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        host = f"127.0.0.1:{self.server.server_address[1]}"
        type(self).seen.append((self.path, self.headers.get("Authorization")))
        if self.path.startswith("/token?"):
            self._send(200, json.dumps({"token": TOKEN}).encode(), {"Content-Type": "application/json"})
            return
        parts = self.path.split("/")  # /v2/<ns>/<name>/(manifests|blobs)/<digest>
        if len(parts) != 6 or parts[1] != "v2":
            self._send(404)
            return
        repo = f"{parts[2]}/{parts[3]}"
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._send(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', {
                "WWW-Authenticate": f'Bearer realm="http://{host}/token",service="{host}",scope="repository:{repo}:pull"'})
            return
        table = MANIFESTS if parts[4] == "manifests" else BLOBS
        doc = table.get(parts[5])
        if doc is None:
            self._send(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')
            return
        media = doc.get("mediaType", "application/vnd.oci.image.config.v1+json")
        self._send(200, json.dumps(doc).encode(), {"Content-Type": media, "Docker-Content-Digest": parts[5]})


@pytest.fixture
def registry():
    Registry.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_references_resolve_to_their_registry():
    d = "sha256:" + "ab" * 32
    assert parse_image(f"metabase/metabase@{d}").registry == "registry-1.docker.io"
    assert parse_image(f"nginx@{d}").repository == "library/nginx"
    assert parse_image(f"ghcr.io/acme/api:1.2@{d}").repository == "acme/api"
    assert parse_image(f"127.0.0.1:5000/team/api@{d}").base_url == "http://127.0.0.1:5000/v2/team/api"
    assert parse_image(f"registry.example.com/team/api@{d}").base_url.startswith("https://")
    assert parse_image("nginx:1.27") is None


def test_an_index_with_only_amd64_refuses_an_arm64_workload_and_admits_amd64(registry):
    image = f"{registry}/team/api@{_digest(INDEX_AMD64)}"
    assert image_platforms(parse_image(image)) == {"linux/amd64"}
    # The token dance happened: the manifest was asked for with the anonymous token.
    assert any(p.startswith("/token?") for p, _ in Registry.seen)
    assert (f"/v2/team/api/manifests/{_digest(INDEX_AMD64)}", f"Bearer {TOKEN}") in Registry.seen
    result = check_platforms([("api", image, "linux/arm64"), ("worker", image, "linux/amd64")])
    assert len(result.problems) == 1 and result.problems[0].startswith("api: the image has linux/amd64, not linux/arm64")
    assert result.checked == ["worker: linux/amd64 found in linux/amd64"]


def test_a_manifest_list_with_both_and_a_single_manifest_read_through_its_config(registry):
    both = check_platforms([("api", f"{registry}/team/api@{_digest(LIST_BOTH)}", "linux/arm64")])
    assert not both.problems and both.checked
    single = f"{registry}/team/api@{_digest(SINGLE)}"
    assert image_platforms(parse_image(single)) == {"linux/amd64"}
    assert check_platforms([("api", single, "linux/arm64")]).problems


def test_what_cannot_be_read_is_not_checked_and_never_refused(registry):
    missing = check_platforms([("api", f"{registry}/team/api@sha256:{'9' * 64}", "linux/arm64")])
    assert missing.problems == [] and "HTTP 404" in missing.unchecked[0]
    closed = check_platforms([("api", f"127.0.0.1:1/team/api@sha256:{'9' * 64}", "linux/arm64")])
    assert closed.problems == [] and "could not be read" in closed.unchecked[0]
    ecr = check_platforms([("api", f"123456789012.dkr.ecr.us-east-1.amazonaws.com/api@sha256:{'9' * 64}", "linux/arm64")])
    assert ecr.problems == [] and "private ECR" in ecr.unchecked[0]


def test_preview_and_up_refuse_before_pulumi_when_the_platform_is_missing(registry):
    """The guard of preview/up (deploy_engine.pipeline.guards): refused lines, unchecked ones said."""
    from deploy_engine.pipeline.guards import _image_platforms
    from deploy_engine.secrets import Redactor

    item = types.SimpleNamespace(name="api", kind="workload", capacity={"image": f"{registry}/team/api@{_digest(INDEX_AMD64)}", "platform": "linux/arm64"})
    said: list[str] = []
    run = types.SimpleNamespace(plan=types.SimpleNamespace(items=[item]), ctx=types.SimpleNamespace(image_fetch=None), command="up",
                                err=said.append, redactor=Redactor())
    refused = _image_platforms(run)
    assert len(refused) == 1 and "not linux/arm64" in refused[0]
    item.capacity["platform"] = "linux/amd64"
    assert _image_platforms(run) == [] and said == []


def test_an_overridden_health_probe_image_is_checked_for_the_platform_too(registry):
    """RUNWAY_HEALTH_PROBE_IMAGE (docs/deploy.md, "Health probe") runs in every internal
    `health.path` workload's task: an override without the task's platform is refused too."""
    from deploy_engine.pipeline.guards import _image_platforms
    from deploy_engine.secrets import Redactor

    app = f"{registry}/team/api@{_digest(LIST_BOTH)}"
    item = types.SimpleNamespace(name="api", kind="workload", capacity={"image": app, "platform": "linux/arm64", "health": {"path": "/h"}})
    run = types.SimpleNamespace(plan=types.SimpleNamespace(items=[item]), ctx=types.SimpleNamespace(image_fetch=None), command="up",
                                err=[].append, redactor=Redactor())
    amd64_only = types.SimpleNamespace(health_probe_image=f"{registry}/mirror/busybox@{_digest(INDEX_AMD64)}")
    (refused,) = _image_platforms(run, amd64_only)
    assert refused.startswith("api (health probe): ") and "not linux/arm64" in refused
    assert _image_platforms(run, types.SimpleNamespace(health_probe_image=app)) == []
    # A public workload runs no probe: the override is not read for it.
    item.capacity["expose"] = "public"
    assert _image_platforms(run, amd64_only) == []
