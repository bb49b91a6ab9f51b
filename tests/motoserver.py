"""A real moto_server on 127.0.0.1 for the tests that speak the AWS API over HTTP.

``moto_server`` (session fixture, re-exported by conftest.py): starts ``python -m moto.server
-H 127.0.0.1 -p <free port>`` once per test session, waits until it accepts connections, and
stops it by its PID at the end. It is the S3 API over HTTP as boto3 sends it (signed requests,
conditional headers, Object Lock), not an in-process mock:

    def test_x(moto_server):
        s3 = moto_server.client("s3")
        bucket = moto_server.bucket(object_lock=True)   # a fresh, uniquely named bucket
        env = moto_server.env()                         # AWS_* variables for a subprocess or main(environ=...)

Each test makes its own buckets (names are unique), so tests never see each other's objects.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator

import pytest

REGION = "us-east-1"
#: moto accepts any key pair; these are not credentials of anything.
ACCESS_KEY = "testing"
SECRET_KEY = "testing-secret-key-not-a-credential"


def _no_proxy() -> str:
    """NO_PROXY with 127.0.0.1 added: requests to moto never go through an HTTP proxy."""
    current = [h for h in (os.environ.get("NO_PROXY") or os.environ.get("no_proxy") or "").split(",") if h]
    return ",".join(current + [h for h in ("127.0.0.1", "localhost") if h not in current])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class MotoServer:
    """A running moto_server: ``endpoint`` (``http://127.0.0.1:PORT``) and its ``pid``."""

    endpoint: str
    pid: int
    _buckets: list[str] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        """The AWS variables that point boto3 (and anything honouring ``AWS_ENDPOINT_URL``) here."""
        return {
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_ENDPOINT_URL": self.endpoint,
            "NO_PROXY": _no_proxy(),
            **extra,
        }

    def client(self, service: str = "s3") -> Any:
        import boto3

        return boto3.session.Session(aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, region_name=REGION).client(
            service, endpoint_url=self.endpoint
        )

    def bucket(self, *, object_lock: bool = False, versioning: bool = False) -> str:
        """Create a new bucket (Object Lock implies versioning, as in AWS) and return its name."""
        name = f"runway-test-{uuid.uuid4().hex[:16]}"
        s3 = self.client()
        if object_lock:
            s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
        else:
            s3.create_bucket(Bucket=name)
            if versioning:
                s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        self._buckets.append(name)
        return name


def _wait_until_listening(port: int, proc: subprocess.Popen, log: Any, deadline_s: float = 120.0) -> None:
    # A readiness wait (not a timed assertion): a loaded machine may take a while to import moto.
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"moto_server exited with {proc.returncode}: {log.read()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("moto_server did not start listening")


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoServer]:
    port = _free_port()
    # moto logs every request: to a file, never a pipe nobody reads (a full pipe would block it).
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=log,
        text=True,
        env={**os.environ, "MOTO_PORT": str(port)},
    )
    # boto3 in this process reads the proxy settings from os.environ: keep 127.0.0.1 direct.
    os.environ["NO_PROXY"] = _no_proxy()
    try:
        _wait_until_listening(port, proc, log)
        yield MotoServer(endpoint=f"http://127.0.0.1:{port}", pid=proc.pid)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)  # stopped by its PID
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()
