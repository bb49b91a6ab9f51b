"""LineIndex: LSP line terminators only, and UTF-16 / UTF-8 conversion at the edges."""

from runway_core.positions import LineIndex, Position, Range, split_lines


def test_lines_split_at_lf_crlf_cr_only():
    text = "a\nb\r\nc\rd\u2028e"
    li = LineIndex(text)
    assert li.line_count == 4
    assert [li.line_text(i) for i in range(4)] == ["a", "b", "c", "d\u2028e"]
    assert li.position(text.index("e")) == Position(3, 2)


def test_split_lines_numbers_lines_as_positions_do():
    for text in ("a\nb\r\nc\rd\u2028e", "x\r\r\ny\r\r\n", "\r", "", "a\n"):
        li = LineIndex(text)
        assert split_lines(text) == [li.line_text(i) for i in range(li.line_count)]


def test_offset_round_trip():
    text = "key: value\n  other: 1\r\nlast"
    li = LineIndex(text)
    for off in range(len(text) + 1):
        pos = li.position(off)
        if text[off - 1 : off] != "\r" or text[off : off + 1] != "\n":  # inside CRLF snaps
            assert li.offset(pos) == min(off, li.line_end(pos.line))


def test_utf16_and_utf8_encoding_of_non_bmp():
    text = "a: '😀é' x\n"
    li = LineIndex(text)
    x = Position(0, text.index("x"))  # code points: 8
    assert x.character == 8
    assert li.encode_position(x, "utf-16") == Position(0, 9)  # 😀 is 2 UTF-16 units
    assert li.encode_position(x, "utf-8") == Position(0, 12)  # 😀 4 bytes, é 2 bytes
    assert li.decode_position(Position(0, 9), "utf-16") == x
    assert li.decode_position(Position(0, 12), "utf-8") == x
    # Inside a surrogate pair snaps to the character holding it.
    assert li.decode_position(Position(0, 5), "utf-16") == Position(0, 4)


def test_clamping():
    li = LineIndex("ab\ncd")
    assert li.position(99) == Position(1, 2)
    assert li.decode_position(Position(7, 0)) == Position(1, 2)
    assert li.decode_position(Position(0, 99)) == Position(0, 2)
    assert Range.at(1, 0, 2).contains(Position(1, 2))
