"""The start-up floor: a bare pygls 2 server that registers one feature (hover) and nothing
else, started as ``python benchmarks/bare_server.py``. benchmarks/bench_lsp.py starts it
interleaved with runway-lsp and reports runway-lsp's start-up as a ratio to it."""

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "1")


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(params: types.HoverParams) -> None:
    return None


if __name__ == "__main__":
    server.start_io()
