"""Ninth fresh adversary, CLI C4 (issue 23): ``usage init --force`` dropped a figure the team
had commented out when it carried its own end-of-line note (any ``# <key>: <value>  # <text>``
line was taken as one ``usage init`` writes). A line is generated only when it is exactly what
``usage init`` writes at that place (docs/cli.md, "usage init")."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ORDERS = REPO / "examples" / "orders"
SHORT_DIGEST = "4b7e5b1a2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd"

TEAM_FIGURES = """usage: 1
environments:
  dev:
    items:
      invoices:
        # storage_gb: 75   # March figure, before the archive job; FIN-123 keep for the audit
        storage_gb: 12   # measured in November
        # put_requests_thousands: 333  # team estimate from the access logs
"""


def product(tmp_path: Path, usage: str) -> Path:
    dest = tmp_path / "o"
    shutil.copytree(ORDERS, dest)
    root = dest / "runway.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(SHORT_DIGEST, SHORT_DIGEST + "0"), encoding="utf-8")
    (dest / "runway.usage.yaml").write_text(usage, encoding="utf-8")
    return dest


def usage_init_force(folder: Path) -> str:
    got = subprocess.run([sys.executable, "-m", "deploy_engine", "usage", "init", str(folder), "--force"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert got.returncode == 0, (got.stdout, got.stderr)
    return (folder / "runway.usage.yaml").read_text(encoding="utf-8")


def block(text: str, env: str, item: str) -> list[str]:
    """The lines of ``item`` under environment ``env`` (its key line to the next item's)."""
    lines = text.split("\n")
    start = lines.index(f"  {env}:")
    at = next(i for i in range(start, len(lines)) if lines[i].startswith(f"      {item}:"))
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("        "))
    return lines[at:end]


def test_a_commented_out_figure_with_its_own_note_is_kept_in_place(tmp_path):
    folder = product(tmp_path, TEAM_FIGURES)
    text = usage_init_force(folder)
    # Before: both team lines gone (not at the end either), `storage_gb: 12` and its note kept.
    lines = block(text, "dev", "invoices")
    assert lines[1:] == [
        "        # storage_gb: 75   # March figure, before the archive job; FIN-123 keep for the audit",
        "        storage_gb: 12   # measured in November",
        "        # put_requests_thousands: 333  # team estimate from the access logs",
        "        # put_requests_thousands: 100     # k requests/month: PUT, COPY, POST and LIST requests; catalogue assumption",
        "        # get_requests_thousands: 1000    # k requests/month: GET and other requests; catalogue assumption",
    ], lines
    # The same keys of another environment: only what usage init writes there.
    assert "333" not in "\n".join(block(text, "staging", "invoices"))
    assert "# Comments of the earlier file" not in text
    # A second --force changes nothing.
    assert usage_init_force(folder) == text


def test_only_the_exact_generated_lines_are_written_anew(tmp_path):
    usage = """usage: 1
environments:
  dev:
    items:
      invoices:                           # bucket, small
        # storage_gb: 50                  # GB-month: S3 Standard storage; catalogue assumption
        # storage_gb: 50
        # put_requests_thousands: 100   # GB-month from the access logs, not the assumption
        # get_requests_thousands: 7       # k requests/month: GET and other requests; catalogue assumption
        # note: figures checked by finance
      order-events:                       # topic, small
        publishes_millions: 3             # M publishes/month: SNS publishes; catalogue assumption
        # payload_gb: 4   # once the topic is FIFO
"""
    folder = product(tmp_path, usage)
    text = usage_init_force(folder)
    lines = block(text, "dev", "invoices")
    # The assumption, with the generated note or none: usage init's own, written once.
    assert [line for line in lines if "storage_gb" in line] == [
        "        # storage_gb: 50                  # GB-month: S3 Standard storage; catalogue assumption"]
    # The assumption's value with a note of the team's, a figure other than the assumption
    # with the generated note: the team's, each kept above its key; a note under the item
    # after them stays at the end of the item (never moved before the next key, order-events,
    # which the template writes before invoices: the runway's order).
    assert "        # put_requests_thousands: 100   # GB-month from the access logs, not the assumption" in lines
    at = lines.index("        # get_requests_thousands: 7       # k requests/month: GET and other requests; catalogue assumption")
    assert lines[at + 1:] == ["        # get_requests_thousands: 1000    # k requests/month: GET and other requests; catalogue assumption",
                              "        # note: figures checked by finance"]
    # A value uncommented with the generated note left on it: the note is usage init's.
    assert "        publishes_millions: 3             # M publishes/month: SNS publishes" in text
    # A key usage init does not write (a Standard topic's payload is not billed): the
    # commented figure kept at the end, saying where it was.
    tail = text.rstrip("\n").split("\n")[-2:]
    assert tail == ["# Comments of the earlier file whose key usage init no longer writes:",
                    "# environments.dev.items.order-events: # payload_gb: 4   # once the topic is FIFO"], tail
    assert usage_init_force(folder) == text


def test_a_crlf_usage_file_stays_crlf_through_force(tmp_path):
    """Ninth adversary M3: `--force` over a CRLF usage file (a Windows checkout) wrote a file
    of mixed endings (the carried team lines kept their CR). Every line now ends as the file's
    did; the team's lines and values are kept, and a second `--force` changes nothing."""
    folder = product(tmp_path, TEAM_FIGURES.replace("\n", "\r\n"))
    usage_init_force(folder)
    data = (folder / "runway.usage.yaml").read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 20  # every line CRLF, none LF alone
    text = data.decode("utf-8").replace("\r\n", "\n")
    assert "# storage_gb: 75   # March figure, before the archive job; FIN-123 keep for the audit" in text
    assert "storage_gb: 12   # measured in November" in text
    usage_init_force(folder)
    assert (folder / "runway.usage.yaml").read_bytes() == data
