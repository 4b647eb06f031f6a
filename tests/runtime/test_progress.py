import io

from exactrelu.progress import LineProgress


def test_interactive_progress_overwrites_one_line():
    buf = io.StringIO()
    p = LineProgress(buf, interactive=True, min_interval=0.0)
    p("search: 500 subsets tried")
    p("search: 1000")
    p.close()
    text = buf.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1
    assert "1000" in text.split("\r")[-1]


def test_interactive_progress_is_throttled_and_log_mode_writes_lines():
    buf = io.StringIO()
    p = LineProgress(buf, interactive=True, min_interval=3600.0)
    p("first")
    p("second")  # within the interval: dropped
    assert "second" not in buf.getvalue()
    p.close()
    p.close()  # idempotent
    log = io.StringIO()
    q = LineProgress(log, interactive=False)
    q("a")
    q("b")
    assert log.getvalue() == "  .. a\n  .. b\n"
