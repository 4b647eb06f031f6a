"""The trusted ``transcript`` claim: a network's exact values on line, axis and point blocks are accepted and every
changed answer is refused; the windows bound is a theorem (a network giving the answers has at least that many units);
every refusal of trusted/transcript.py is reached, hostile sizes refused before the work."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.checker import CheckFailed, UnreadableInput, check
from exactrelu.certificates.claims.transcript import transcript_certificate
from exactrelu.network import Network

small = st.fractions(min_value=-4, max_value=4, max_denominator=8)


def _values(net: Network, points) -> list[list[str]]:
    values = net.evaluate_exact([list(map(Fraction, x)) for x in points]).to_fractions()
    return [[str(v) for v in row] for row in values]


def blocks_of(net: Network, p, q, ts, x, h, extra) -> list[dict]:
    """A line, an axis batch and a block of points, with the network's exact answers."""
    d = net.d
    line = [[a + t * b for a, b in zip(p, q)] for t in ts]
    axes = [[v + h * (i == l) for i, v in enumerate(x)] for l in range(d)]
    return [{"line": {"p": list(map(str, p)), "q": list(map(str, q))}, "t": list(map(str, ts)),
             "answers": _values(net, line)},
            {"axes": {"x": list(map(str, x)), "step": str(h)}, "answers": _values(net, axes)},
            {"points": [list(map(str, e)) for e in extra], "answers": _values(net, extra)}]


@st.composite
def networks_and_blocks(draw):
    d, k, m = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 2))
    vec = lambda n: draw(st.lists(small, min_size=n, max_size=n))  # noqa: E731
    net = Network.from_rows(U=[vec(k) for _ in range(m)], V=[vec(d) for _ in range(k)], b=vec(k), c=vec(m))
    ts = draw(st.lists(small, min_size=1, max_size=6))
    h = draw(small.filter(bool))
    return net, blocks_of(net, vec(d), vec(d), ts, vec(d), h, [vec(d) for _ in range(draw(st.integers(1, 3)))])


def _accepted_then_one_changed_answer_refused(case, data) -> None:
    """The exact answers of ``case`` (a network and its query blocks) are accepted; one answer, drawn from ``data``,
    changed by 2^-40 is refused at that block and output."""
    net, blocks = case
    cert = transcript_certificate(net.d, net.m, blocks, network=net)
    assert "gives every one exactly" in check(cert, None)
    b = data.draw(st.integers(0, 2))
    j = data.draw(st.integers(0, len(blocks[b]["answers"]) - 1))
    r = data.draw(st.integers(0, net.m - 1))
    bad = copy.deepcopy(cert)
    bad["queries"][b]["answers"][j][r] = str(Fraction(bad["queries"][b]["answers"][j][r]) + Fraction(1, 2**40))
    with pytest.raises(CheckFailed, match=rf"block {b} .*, output {r}: the network's value differs"):
        check(bad, None)


@settings(deadline=None, max_examples=25)
@given(networks_and_blocks(), st.data())
def test_exact_answers_are_accepted_and_each_changed_answer_is_refused(case, data):
    _accepted_then_one_changed_answer_refused(case, data)


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 3), st.integers(1, 5), st.data())
def test_the_windows_bound_is_a_theorem(d, k, data):
    """Whatever windows the checker accepts on the answers of a k-unit network, there are at most as many as the
    network's units with a kink on the line (<= k)."""
    vec = lambda n: data.draw(st.lists(small, min_size=n, max_size=n))  # noqa: E731
    net = Network.from_rows(U=[vec(k)], V=[vec(d) for _ in range(k)], b=vec(k))
    p, q = vec(d), vec(d)
    ts = sorted(set(data.draw(st.lists(small, min_size=3, max_size=24))))
    block = blocks_of(net, p, q, ts, p, 1, [p])[0]
    windows, i = [], 0
    while i + 2 < len(ts):  # greedy disjoint triples whose answers are not collinear
        a, b, c = ts[i:i + 3]
        ya, yb, yc = (Fraction(block["answers"][j][0]) for j in (i, i + 1, i + 2))
        if (yb - ya) * (c - a) != (yc - ya) * (b - a):
            windows.append([i, i + 1, i + 2])
            i += 2  # the next window may start where this one ends
        else:
            i += 1
    if not windows:
        return
    verdict = check(transcript_certificate(d, 1, [block], windows={"block": 0, "points": windows}), None)
    assert f"at least {len(windows):,} unit" in verdict
    kinks = {-(sum(v * x for v, x in zip(V, p)) + b) / s for V, b in zip(net.V.to_fractions(), net.b_fractions())
             if (s := sum(v * x for v, x in zip(V, q)))}
    assert len(windows) <= len(kinks) <= k


def _good() -> dict:
    """relu(x) - 2 relu(x + y - 1) + 1/2: on the line (t, 0), kinks at t = 0 and t = 1."""
    net = Network.from_rows(U=[[1, -2]], V=[[1, 0], [1, 1]], b=[0, -1], c=["1/2"])
    ts = [Fraction(t) for t in (-3, -2, -1, "1/2", 2, 3)]
    blocks = blocks_of(net, [0, 0], [1, 0], ts, [Fraction(1, 3), 2], Fraction(1, 4), [[1, 1]])
    return transcript_certificate(2, 1, blocks, network=net, windows={"block": 0, "points": [[2, 3, 4]]})


def _set(path, value):
    def change(cert):
        *head, last = path
        target = cert
        for key in head:
            target = target[key]
        target[last] = value
    return change


@pytest.mark.parametrize("change, match", [
    (_set(["d"], 0), "d must be a positive integer"),
    (_set(["m"], True), "m must be a positive integer"),
    (_set(["queries"], []), "queries must be a non-empty list"),
    (_set(["queries", 0, "kind"], "line"), "every query block is"),
    (_set(["queries", 0, "line"], {"p": ["0", "0"]}), 'a line block needs "line"'),
    (_set(["queries", 0, "t"], "0"), "every row of t must be"),
    (_set(["queries", 1, "axes"], {"x": ["0", "0"]}), 'an axis block needs "axes"'),
    (_set(["queries", 1, "answers"], [["1"]]), "answers must be a non-empty list of 2 rows"),
    (_set(["queries", 2, "answers"], [["1", "2"]]), "every row of answers must be a list of 1 rationals"),
    (_set(["queries", 2, "points"], [["1"]]), "every row of points must be a list of 2 rationals"),
    (_set(["network", "V"], [["1", "0", "0"], ["1", "1", "0"]]), "the network has d = 3, m = 1"),
    (_set(["windows"], [[1, 2, 3]]), "windows must be"),
    (_set(["windows", "block"], 1), "must be the index of a line block"),
    (_set(["windows", "block"], 5), "must be the index of a line block"),
    (_set(["windows", "points"], "all"), "windows.points must be a list"),
    (_set(["windows", "points"], [[2, 3, 9]]), "window 0 must be three indices of points of block 0"),
    (_set(["windows", "points"], [[2, 3]]), "window 0 must be three indices"),
    (_set(["windows", "points"], [[3, 2, 4]]), "not in increasing order of t"),
    (_set(["windows", "points"], [[2, 3, 4], [1, 4, 5]]), "window 1 overlaps the window before it"),
    (_set(["windows", "points"], [[0, 1, 2]]), "collinear"),
    (_set(["queries", 1, "axes", "step"], "0"), "must be non-zero"),
    (_set(["queries", 0, "answers", 4], ["7"]), "block 0 .line., point 4, output 0"),
    (_set(["queries", 1, "answers", 1], ["7"]), "block 1 .axes., axis 1, output 0"),
    (_set(["queries", 2, "answers", 0], ["7"]), "block 2 .points., point 0, output 0"),
    (_set(["extra"], 1), "unknown fields"),
])
def test_every_refusal(change, match):
    cert = _good()
    assert "gives every one exactly; every ReLU network" in check(cert, None)
    bad = copy.deepcopy(cert)
    change(bad)
    with pytest.raises(CheckFailed, match=match):
        check(bad, None)


def test_windows_may_touch_and_the_bound_needs_no_network():
    cert = _good()
    del cert["network"]
    cert["windows"]["points"] = [[1, 2, 3], [3, 4, 5]]  # (-2, 1/2) and (1/2, 3): the kinks at 0 and 1
    assert check(cert, None).endswith("has at least 2 units (2 disjoint windows of block 0 with answers not collinear)")


def test_hostile_sizes_are_refused_before_the_work():
    """Numbers within the digit limit whose common denominators or products are over the limit 'intermediate'
    (100,000 digits) are refused (exit 2) before they are computed."""
    big = [10**3999 + 2 * i + 1 for i in range(40)]
    axes = {"axes": {"x": [f"1/{q}" for q in big], "step": "1"}, "answers": [["0"]] * 40}
    cert = transcript_certificate(40, 1, [axes], network=Network.from_rows(U=[[1]], V=[[1] * 40]))
    with pytest.raises(UnreadableInput, match="common denominator.*limit intermediate"):
        check(cert, None)  # 40 denominators of 4,000 digits: their lcm is about 160,000 digits
    net = Network.from_rows(U=[[1]], V=[[Fraction(1, q) for q in big[:20]]])
    point = [[f"1/{q}" for q in big[20:]]]
    cert = transcript_certificate(20, 1, [{"points": point, "answers": [["0"]]}], network=net)
    with pytest.raises(UnreadableInput, match="the exact check of block 0.*limit intermediate"):
        check(cert, None)  # each common denominator about 80,000 digits, their product over the limit


@pytest.mark.parametrize("x", [[10, -10, 3], [-10, 10, -3], [Fraction(1, 4), Fraction(1, 8), 0]])
def test_axis_batches_with_units_on_off_and_near(x):
    """Units on at every probe (summed once per batch), off at every probe, and near (a probe crosses): the batch is
    accepted with the exact answers, and each changed answer is refused at its axis."""
    net = Network.from_rows(U=[[1, -2, 3, "1/2"], [0, 1, -1, 2]], V=[[1, 1, 0], [-1, 2, 1], [0, 0, 1], [3, -1, 2]],
                            b=[0, 1, -1, "1/3"], c=[1, -1])
    x = [Fraction(v) for v in x]
    block = blocks_of(net, x, x, [0], x, Fraction(1, 2), [x])[1]
    cert = transcript_certificate(3, 2, [block], network=net)
    assert "gives every one exactly" in check(cert, None)
    for l in range(3):
        bad = copy.deepcopy(cert)
        bad["queries"][0]["answers"][l][1] = str(Fraction(bad["queries"][0]["answers"][l][1]) - 1)
        with pytest.raises(CheckFailed, match=f"block 0 .axes., axis {l}, output 1"):
            check(bad, None)


@st.composite
def deep_networks_and_blocks(draw):
    """A network of 2 or 3 hidden layers (small rationals), a line with many points (so that several share their
    activation patterns and several do not), an axis batch and points, with the exact answers."""
    d, m, depth = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(2, 3))
    vec = lambda n: draw(st.lists(small, min_size=n, max_size=n))  # noqa: E731
    widths = [d] + [draw(st.integers(1, 3)) for _ in range(depth)] + [m]
    net = Network.from_layers([([vec(a) for _ in range(b)], vec(b)) for a, b in zip(widths, widths[1:])])
    ts = draw(st.lists(small, min_size=1, max_size=12))
    h = draw(small.filter(bool))
    return net, blocks_of(net, vec(d), vec(d), ts, vec(d), h, [vec(d) for _ in range(draw(st.integers(1, 3)))])


@settings(deadline=None, max_examples=40)
@given(deep_networks_and_blocks(), st.data())
def test_deep_networks_exact_answers_are_accepted_and_each_changed_answer_is_refused(case, data):
    """The deep check (first layer per block, the layers above shared along a line by activation pattern) accepts
    the exact answers of networks of 2 and 3 hidden layers and refuses every answer changed by 2^-40."""
    _accepted_then_one_changed_answer_refused(case, data)


def test_deep_line_points_sharing_a_pattern_below_but_not_above():
    """relu(relu(x) - 1) on the line x = t: t = 1/2 and t = 3 have the same first-layer pattern (on) and different
    second-layer ones; t = -1 and t = -2 share both. Every answer is checked at its own pattern."""
    net = Network.from_layers([([[1]], [0]), ([[1]], [-1]), ([[2], [-1]], [0, "1/2"])])
    ts = [Fraction(1, 2), 3, -1, -2, 1, 5]
    block = blocks_of(net, [0], [1], ts, [0], 1, [[0]])[0]
    assert [a[0] for a in block["answers"]] == ["0", "4", "0", "0", "0", "8"]
    cert = transcript_certificate(1, 2, [block], network=net)
    assert "hidden widths 1-1" in check(cert, None)
    for j, row in enumerate(block["answers"]):
        bad = copy.deepcopy(cert)
        bad["queries"][0]["answers"][j] = [row[0], str(Fraction(row[1]) + 1)]
        with pytest.raises(CheckFailed, match=f"block 0 .line., point {j}, output 1"):
            check(bad, None)


def test_deep_hostile_sizes_are_refused_before_the_work():
    """A deep network whose layers' growth puts a block's integers over the limit 'intermediate' is refused before
    any point is evaluated (lines, axis batches and points alike)."""
    big = Fraction(10**4000 + 1, 10**4000)  # each layer over 10^4000: 30 layers, about 120,000 digits
    net = Network.from_layers([([[big, 1]], [0])] + [([[big]], [0])] * 30 + [([[1]], None)])
    for block in ({"line": {"p": ["0", "0"], "q": ["1", "0"]}, "t": ["0"], "answers": [["0"]]},
                  {"axes": {"x": ["0", "0"], "step": "1"}, "answers": [["0"], ["0"]]},
                  {"points": [["0", "0"]], "answers": [["0"]]},
                  {"axes": {"x": ["0", "0"], "step": "1", "basis": 0}, "answers": [["0"]]}):
        with pytest.raises(UnreadableInput, match="the exact check of block 0 .* limit intermediate"):
            check(transcript_certificate(2, 1, [block], network=net, bases=[[["1", "1/3"]]]), None)


def _basis_block(net: Network, x, h, basis) -> dict:
    """The axis batch of the points x + h u for the vectors u of basis 0, with the network's exact answers."""
    points = [[a + h * v for a, v in zip(x, u)] for u in basis]
    return {"axes": {"x": list(map(str, x)), "step": str(h), "basis": 0}, "answers": _values(net, points)}


@settings(deadline=None, max_examples=25)
@given(st.booleans(), st.data())
def test_axis_batches_along_a_basis(deep, data):
    """x + h u_l for the vectors of a basis kept once in the certificate: the exact answers of one- and two-hidden-
    layer networks are accepted, each changed answer is refused at its vector."""
    d, m = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    vec = lambda n: data.draw(st.lists(small, min_size=n, max_size=n))  # noqa: E731
    widths = [d] + [data.draw(st.integers(1, 3)) for _ in range(2 if deep else 1)] + [m]
    net = Network.from_layers([([vec(a) for _ in range(b)], vec(b)) for a, b in zip(widths, widths[1:])])
    basis = [vec(d) for _ in range(data.draw(st.integers(1, 4)))]
    block = _basis_block(net, vec(d), data.draw(small.filter(bool)), basis)
    cert = transcript_certificate(d, m, [block], network=net, bases=[[list(map(str, u)) for u in basis]])
    assert f"{len(basis)} answer" in check(cert, None)
    j, r = data.draw(st.integers(0, len(basis) - 1)), data.draw(st.integers(0, m - 1))
    bad = copy.deepcopy(cert)
    bad["queries"][0]["answers"][j][r] = str(Fraction(bad["queries"][0]["answers"][j][r]) - Fraction(1, 2**40))
    with pytest.raises(CheckFailed, match=f"block 0 .axes., axis {j}, output {r}"):
        check(bad, None)


def test_a_basis_beside_windows_and_its_refusals():
    """A one-hidden-layer certificate with a basis batch still states the width bound; malformed bases and basis
    indices are refused."""
    cert = _good()
    net = Network.from_rows(U=[[1, -2]], V=[[1, 0], [1, 1]], b=[0, -1], c=["1/2"])
    cert["queries"].append(_basis_block(net, [Fraction(1, 3), 2], Fraction(1, 4), [[1, 1], [Fraction(1, 7), -3]]))
    cert["bases"] = [[["1", "1"], ["1/7", "-3"]]]
    cert["windows"]["points"] = [[1, 2, 3], [3, 4, 5]]  # the kinks at 0 and 1: at least 2 units
    text = check(cert, None)
    assert "2 axis batches" in text and text.endswith("so none has fewer units than this network")
    for change, match in [(_set(["bases"], []), "bases must be a non-empty list"),
                          (_set(["bases"], {"0": 1}), "bases must be a non-empty list"),
                          (_set(["bases", 0], [["1"]]), "every row of basis 0 must be a list of 2 rationals"),
                          (_set(["queries", 3, "axes", "basis"], 1), "axes.basis must be the index"),
                          (_set(["queries", 3, "axes", "basis"], "0"), "axes.basis must be the index"),
                          (_set(["queries", 3, "axes", "basis"], True), "axes.basis must be the index"),
                          (_set(["queries", 3, "axes", "base"], 0), 'an axis block needs "axes"'),
                          (_set(["bases", 0, 1], ["1/7", "-2"]), "block 3 .axes., axis 1, output 0")]:
        bad = copy.deepcopy(cert)
        change(bad)
        with pytest.raises(CheckFailed, match=match):
            check(bad, None)


def test_deep_network_refusals():
    """A deep network of another activation, or of another d or m than the transcript, is refused by name."""
    net = Network.from_layers([([[1, -1], [2, 1]], [0, 1]), ([[1, 1]], [-1]), ([[2]], None)])
    cert = transcript_certificate(2, 1, blocks_of(net, [0, 0], [1, 0], [0, 1], [0, 0], 1, [[1, 1]]), network=net)
    assert "hidden widths 2-1" in check(cert, None)
    for change, match in [(_set(["network", "activation"], {"name": "power", "degree": 2}), "about ReLU networks"),
                          (_set(["network", "layers", 0, "W"], [["1"], ["2"]]),
                           "the network has d = 1, m = 1; the transcript has d = 2, m = 1"),
                          (_set(["network", "layers", 2], {"W": [["2"], ["1"]]}),
                           "the network has d = 2, m = 2; the transcript has d = 2, m = 1")]:
        bad = copy.deepcopy(cert)
        change(bad)
        with pytest.raises(CheckFailed, match=match):
            check(bad, None)
