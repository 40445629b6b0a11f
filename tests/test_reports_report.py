"""``puf report --quick``, built once per module and checked against the known identities.

With a share p of users at zero relevance and the rest fully relevant, every user's P@k and
NDCG@k is exactly 0 or 1 with exactly round(p m) zeros (m = 100, p a multiple of 0.1, so
round(p m) / m = p), hence
    SD   = sqrt(q(1 − q)) with q = p          (population SD of a 0/1 vector)
    Gini = Σ_j (2j − m − 1) x_(j) / (m Σ x) = z(m − z) / (m (m − z)) = z / m = p, z = p m zeros
           (undefined at p = 1, where Σ x = 0)
    PUF  = 0 at p = 0 and p = 1               (every gap |S(u) − S(v)| is 0).
"""

import base64
import html
import json
import math
import re
import textwrap

import numpy as np
import pandas as pd
import pytest

from puf.cli import main

USER_MEASURE = '''
import numpy as np

def widest_gap(effectiveness):
    """Largest minus smallest effectiveness."""
    return float(np.ptp(effectiveness))
'''


# Two pair forms: twice Gini (accepted) and its similarity-weighted variant (rejected).
DESIGN_GRAMMAR = {
    "pair": {"gap": ["abs"], "weight": ["1", "sim"], "aggregation": ["all-pairs"], "normalisation": ["mean"]}
}


# A known file as `puf check --known` writes it, pinning two cells: "range" against what the
# search finds (the widest gap of values in [0, 1] lies in [0, 1]), "anonymity" as it finds.
PINNED = {
    "measure": "widest_gap",
    "verdicts": {"range": "violated", "anonymity": "holds"},
    "reasons": {"range": "pinned against the search, to see the pinned verdict win"},
    "examples": {},
}


@pytest.fixture(scope="module")
def report(tmp_path_factory, report_budget):
    """The quick report with a user measure and a small design, built once for every test of this module.

    Its property search and design run at ``report_budget`` examples a property (tests/conftest.py):
    what is asserted here is how the verdicts are found and shown, at any budget.
    """
    from puf.reports.report import SETTINGS

    home = tmp_path_factory.mktemp("user")
    (home / "my_measures.py").write_text(textwrap.dedent(USER_MEASURE))
    (home / "grammar.json").write_text(json.dumps(DESIGN_GRAMMAR))
    (home / "widest_gap.known.json").write_text(json.dumps(PINNED))
    out = tmp_path_factory.mktemp("report") / "out"
    with pytest.MonkeyPatch.context() as patch:
        if report_budget is not None:
            patch.setitem(SETTINGS["quick"], "max_examples", report_budget)
        code = _quick_report(out, home)
    assert code == 0
    return out


def _quick_report(out, home):
    return main(
        [
            "report",
            "--quick",
            "--quiet",
            "--out",
            str(out),
            "--measure",
            f"{home / 'my_measures.py'}:widest_gap",
            "--known",
            str(home / "widest_gap.known.json"),
            "--random-state",
            "0",
            "--design",
            "pigou-dalton,zero-at-equality",
            "--design-grammar",
            str(home / "grammar.json"),
        ]
    )


def _table(report, name):
    return pd.read_csv(report / f"{name}.csv")


def test_every_file_is_written(report):
    names = {p.name for p in report.iterdir()}
    expected = {"index.html", "report.md", "properties.json", "responses.csv", "settings.json", "design.json"}
    expected |= {"findings.csv", "contrasts.csv"}
    for sweep in ("zero_relevance", "skewness", "skewness_free_mean", "pairing", "gamma"):
        expected |= {f"{sweep}.csv", f"{sweep}.png"}
    assert expected <= names


def test_zero_relevance_csv_matches_the_identities(report):
    table = _table(report, "zero_relevance")
    scores = table.pivot_table(index=["value", "seed"], columns="measure", values="score", dropna=False)
    p = scores.index.get_level_values("value").to_numpy()
    np.testing.assert_allclose(scores["SD-NDCG"], np.sqrt(p * (1 - p)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(scores["SD-P"], np.sqrt(p * (1 - p)), rtol=0, atol=1e-12)
    defined = p < 1
    np.testing.assert_allclose(scores["Gini-NDCG"][defined], p[defined], rtol=0, atol=1e-12)
    assert scores["Gini-NDCG"][~defined].isna().all()  # NaN at p = 1, never 0
    ends = (p == 0) | (p == 1)
    np.testing.assert_allclose(scores["PUF-NDCG"][ends], 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(scores["PUF-P"][ends], 0.0, rtol=0, atol=1e-12)
    assert (scores["PUF-NDCG"][~ends] > 0).all()
    np.testing.assert_allclose(scores["NDCG@k"], 1 - p, rtol=0, atol=1e-12)


def test_tidy_columns(report):
    table = _table(report, "zero_relevance")
    assert list(table.columns) == ["measure", "parameter", "value", "seed", "score"]
    assert set(table["parameter"]) == {"zero_relevance"}
    assert sorted(table["seed"].unique()) == [0, 1]
    assert list(_table(report, "pairing").columns) == ["measure", "parameter", "pairing", "value", "seed", "score"]


def _labels(report):
    labels = pd.read_csv(report / "responses.csv", keep_default_na=False)
    return {(r.sweep, r.measure, r.condition): r.trend for r in labels.itertuples()}


def _contrasts(report):
    contrasts = pd.read_csv(report / "contrasts.csv", keep_default_na=False)
    return {(r.sweep, r.measure): r for r in contrasts.itertuples()}


def test_pinned_trends_and_pairing_contrasts(report):
    labels, contrasts = _labels(report), _contrasts(report)
    for metric in ("P", "NDCG"):
        for pairing in ("random", "most_fair", "most_unfair"):
            assert labels["skewness", f"SD-{metric}", f"pairing = {pairing}"] == "flat"
        assert labels["zero_relevance", f"PUF-{metric}", ""] == "rising then falling (highest at 50%)"
        assert labels["zero_relevance", f"SD-{metric}", ""] == "rising then falling (highest at 50%)"
        # PUF tells the fair pairing from the unfair one; the similarity-blind SD and Gini cannot.
        assert contrasts["skewness", f"PUF-{metric}"].verdict == "unfair above"
        assert contrasts["pairing", f"PUF-{metric}"].verdict == "unfair above"
        for blind in ("SD", "Gini"):
            assert contrasts["skewness", f"{blind}-{metric}"].verdict == "no difference"
            assert contrasts["pairing", f"{blind}-{metric}"].verdict == "no difference"
        # PUF reads the reshaped similarity where users' effectiveness follows it.
        for pairing in ("most_fair", "most_unfair"):
            assert labels["skewness", f"PUF-{metric}", f"pairing = {pairing}"] != "flat"
    assert labels["zero_relevance", "UF", ""] == "flat"
    assert contrasts["pairing", "UF"].verdict == "no difference"


def test_pinned_free_mean_skewness_trends(report):
    """With the mean free (sim ** α), PUF falls with the skewness even under random pairing.

    At a fixed mean and random pairing E[PUF] = mean(sim) · E|S(u) − S(v)| does not move, so PUF
    is flat there; a larger α raises the skewness and lowers the mean, so PUF falls. SD reads no
    similarity at all.
    """
    labels = _labels(report)
    for metric in ("P", "NDCG"):
        assert labels["skewness", f"PUF-{metric}", "pairing = random"] == "flat"
        assert labels["skewness_free_mean", f"PUF-{metric}", "pairing = random"] == "falling"
        assert labels["skewness_free_mean", f"SD-{metric}", "pairing = random"] == "flat"
    for gamma in ("0", "0.5", "1"):  # written γ, never gamma
        assert labels["gamma", "UF", f"γ = {gamma}"] == "flat"
        assert labels["gamma", "PUF-NDCG", f"γ = {gamma}"].startswith("rising then falling")


def test_user_measure_is_in_every_sweep_and_the_matrix(report):
    for sweep in ("zero_relevance", "skewness", "skewness_free_mean", "pairing", "gamma"):
        measures = set(_table(report, sweep)["measure"])
        assert {"widest_gap-P", "widest_gap-NDCG"} <= measures, sweep
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "widest_gap-NDCG" in page and "widest_gap" in page
    verdicts = json.loads((report / "properties.json").read_text())["verdicts"]
    assert {v["measure"] for v in verdicts} >= {"widest_gap", "puf", "sd", "uf"}
    assert "widest_gap" in (report / "report.md").read_text(encoding="utf-8")


def test_html_is_self_contained_and_every_image_is_a_png(report):
    import matplotlib.image

    page = (report / "index.html").read_text(encoding="utf-8")
    sources = re.findall(r"<img [^>]*src=\"([^\"]+)\"", page)
    assert len(sources) == 5 + 1  # the sweeps and the search-power plot
    for source in sources:
        assert source.startswith("data:image/png;base64,")
        data = base64.b64decode(source.split(",", 1)[1], validate=True)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = matplotlib.image.imread(__import__("io").BytesIO(data), format="png")
        assert pixels.ndim == 3 and min(pixels.shape[:2]) > 100
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_report_says_what_produced_it(report):
    settings = json.loads((report / "settings.json").read_text())
    assert "synthetic.world" in settings["data"]
    assert settings["seeds"].startswith("0, 1")
    assert "--quick" in settings["command"]
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "How this report was made" in page and "Property verdicts" in page


def test_verdict_matrix_is_coloured_and_pinned_cells_hold(report):
    verdicts = json.loads((report / "properties.json").read_text())["verdicts"]
    status = {(v["measure"], v["property"]): v["status"] for v in verdicts}
    assert status["sd", "similarity-sensitive"] == "violated"
    assert status["puf", "similarity-sensitive"] == "holds"
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count('<td style="background:') >= len(verdicts)


def test_the_report_states_the_budget_its_search_and_design_ran_at(report, report_budget):
    from puf.properties.running.budget import QUICK_MAX_EXAMPLES

    budget = report_budget or QUICK_MAX_EXAMPLES
    note = json.loads((report / "properties.json").read_text())["note"]
    assert f"{budget} Hypothesis examples per property" in note
    settings = json.loads((report / "settings.json").read_text())
    assert settings["property search"].startswith(f"up to {budget} examples per property")
    assert f"up to {budget} examples" in settings["measure design"]


def test_existing_directory_is_not_clobbered(report, capsys):
    before = (report / "index.html").read_bytes()
    assert main(["report", "--quick", "--quiet", "--out", str(report)]) == 2
    assert "exists and is not empty" in capsys.readouterr().err
    assert (report / "index.html").read_bytes() == before


def test_the_designed_measures_section_is_in_both_documents(report):
    design = json.loads((report / "design.json").read_text())
    assert [c["name"] for c in design["accepted"]] == ["1·abs/all-pairs,per-mean"]
    (rejected,) = design["rejected"]
    assert rejected["name"] == "sim·abs/all-pairs,per-mean" and rejected["failed"]["property"] == "pigou-dalton"
    page = (report / "index.html").read_text(encoding="utf-8")
    assert '<a href="#design">Designed measures</a>' in page and '<h2 id="design">Designed measures</h2>' in page
    assert "<code>1·abs/all-pairs,per-mean</code>" in page and "pigou-dalton: violated" in page
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "## Designed measures" in text and "| 1 | `1·abs/all-pairs,per-mean` | ∝ gini | " in text
    assert "| `sim·abs/all-pairs,per-mean` | pigou-dalton: violated |" in text
    assert json.loads((report / "settings.json").read_text())["measure design"].startswith(
        "puf design --require pigou-dalton,zero-at-equality on the grammar "
    )


def test_a_bad_design_option_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["report", "--quiet", "--out", str(out), "--design", "no-such-property"]) == 2
    assert "--design: unknown property 'no-such-property'" in capsys.readouterr().err
    assert main(["report", "--quiet", "--out", str(out), "--design-grammar", "g.json"]) == 2
    assert "need --design" in capsys.readouterr().err
    assert not out.exists()


def test_bad_measure_is_a_clean_error(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["report", "--quiet", "--out", str(out), "--measure", "no_such_module_xyz:f"]) == 2
    assert "cannot import" in capsys.readouterr().err
    assert not out.exists()


def test_same_random_state_same_csv_bytes(report, tmp_path):
    """Rerun every sweep as the report does; the CSV bytes must match the report's."""
    from puf.reports.report import SETTINGS, sweep_extra
    from puf.reports.sweeps import SWEEPS
    from puf.reports.sweeps import Base

    quick = SETTINGS["quick"]
    base = Base(n_users=quick["n_users"], n_items=quick["n_items"])
    cache = {}
    for name, spec in SWEEPS.items():
        table = spec.run(seeds=[0, 1], base=base, quick=True, extra=sweep_extra(spec, [_widest_gap()]), cache=cache)
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_bytes() == (report / f"{name}.csv").read_bytes(), name


def _widest_gap():
    def widest_gap(effectiveness):
        return float(np.ptp(effectiveness))

    return widest_gap


def test_responses_table_is_complete(report):
    from puf.reports.response import TRENDS

    labels = pd.read_csv(report / "responses.csv", keep_default_na=False)
    assert {t.split(" (")[0] for t in labels["trend"]} <= set(TRENDS)
    assert not labels["measure"].isin(["P@k", "NDCG@k"]).any()
    assert all(math.isfinite(float(x)) for x in labels["change"] if x != "")
    assert set(labels["figure"]) == {"zero_relevance", "skewness", "skewness_free_mean", "pairing", "gamma"}


def test_the_zero_relevance_trends_of_gini_and_the_envy_measures_say_rising(report):
    labels = pd.read_csv(report / "responses.csv", keep_default_na=False).query("sweep == 'zero_relevance'")
    rows = {r.measure: r for r in labels.itertuples()}
    assert rows["Gini-NDCG"].trend == "rising" and rows["Gini-NDCG"].undefined_at == "100%"
    for measure in ("Gini-P", "ME", "MME", "PEU"):
        assert rows[measure].trend == "rising", measure
    assert rows["UF"].trend == "flat" and rows["Max-min-P"].trend == "rising then flat (from 10%)"
    fixed = pd.read_csv(report / "responses.csv", keep_default_na=False).query(
        "sweep == 'skewness' and measure == 'UF' and condition == 'pairing = random'"
    )
    assert fixed["undefined_at"].iloc[0] == "-1"  # NaN there: its own column, out of the trend
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "trend as the share of users with zero relevance rises" in page  # the column says what it means
    assert "the skewness of a 0/1 sample with the Jaccard mean" in page  # why the V shape
    assert "UF is undefined (NaN, the cross in its panel) at skewness -1" in page


def test_findings_open_the_page_and_match_the_report_csvs(report):
    """Every finding's numbers are read again from the CSVs the report wrote beside it."""
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.index("<h2 id=findings>") < page.index('<h2 id="zero_relevance">') < page.index("<h2 id=verdicts>")
    found = pd.read_csv(report / "findings.csv", keep_default_na=False)
    claims = dict(zip(found["claim"], zip(found["reproduced"], found["sentence"])))
    assert {r for r, _ in claims.values() if r} == {"yes"}  # every claim of the paper reproduced here
    labels = pd.read_csv(report / "responses.csv", keep_default_na=False)
    zero = labels[labels["sweep"] == "zero_relevance"].set_index("measure")
    blind = claims["SD, Gini, ME, MME and PEU respond to effectiveness disparity, not to similarity"][1]
    for measure in ("SD-NDCG", "Gini-NDCG", "ME", "MME", "PEU"):
        row = zero.loc[measure]
        assert f"{measure} is {row.trend}, change {float(row.change):.3g}" in blind
    skew = labels[labels["sweep"].isin(["skewness", "skewness_free_mean"])]
    uf = claims["UF responds to similarity, not to effectiveness disparity"][1]
    assert f"changes by up to {pd.to_numeric(skew[skew.measure == 'UF'].change).max():.3g}" in uf
    contrast = pd.read_csv(report / "contrasts.csv").query("sweep == 'pairing' and measure == 'PUF-NDCG'").iloc[0]
    pairing = claims["PUF scores the most unfair pairing above the most fair one"][1]
    assert f"higher at {contrast.above} of {contrast.points} points (mean gap {contrast.gap:.3g})" in pairing
    table = _table(report, "zero_relevance")
    sd = table[table.measure.str.startswith("SD-")]
    worst = np.max(np.abs(sd.score - np.sqrt(sd.value * (1 - sd.value))))
    assert f"over every point and seed: {worst:.3g}" in claims["SD = √(p(1 − p)) on the zero-relevance sweep"][1]
    assert "widest_gap-NDCG is rising then falling (highest from 10% to 90%)" in claims["your measure widest_gap"][1]
    for sentence in found["sentence"]:
        assert html.escape(sentence) in page


def test_verdict_matrix_follows_the_figures_with_statements_reasons_and_the_quick_caveat(report):
    from puf import properties

    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.index('<h2 id="gamma">') < page.index("<h2 id=verdicts>") < page.index("<h2 id=provenance>")
    assert "Made with --quick" in page and "(--quick: a small search)" in page
    for name, prop in properties.CATALOG.items():  # every header states its property on hover
        statement = prop.statement.replace("`", "")  # a hover title drops code marks
        assert f'<th title="{html.escape(name)}: {html.escape(statement)}">' in page
    cells = re.findall(r'<td style="background:[^"]+" title="([^"]*)">', page)
    verdicts = json.loads((report / "properties.json").read_text())["verdicts"]
    assert len(cells) == len(verdicts)
    assert all(
        re.match(r"(proven|holds|violated|violated \(informational\)|not-found|undefined|not-applicable): .+", c)
        for c in cells
    )
    assert "`" not in page  # Markdown backticks become <code>
    assert "<code>puf check --all</code>" in page


def test_verdict_matrix_rows_are_grouped_by_family(report):
    import puf

    page = (report / "index.html").read_text(encoding="utf-8")
    matrix = page[page.index("id=verdict-matrix") : page.index("</table>", page.index("id=verdict-matrix"))]
    groups = re.findall(r"<td class=family colspan=\d+>([^<]+)</td>", matrix)
    rows = re.findall(r"<tr><th>([^<]+)</th>", matrix[matrix.index("<tbody>") :])
    order = list(puf.FAMILIES) + ["your measures"]  # a user's --measure rows come last
    families = [puf.MEASURES[m].family if m in puf.MEASURES else "your measures" for m in rows]
    assert families == sorted(families, key=order.index)
    assert groups == list(dict.fromkeys(families))
    assert set(rows) >= set(puf.MEASURES)


def test_a_pinned_measure_shows_its_pinned_verdicts(report):
    verdicts = {
        v["property"]: v
        for v in json.loads((report / "properties.json").read_text())["verdicts"]
        if v["measure"] == "widest_gap"
    }
    assert verdicts["range"]["status"] == "violated"  # the file's, though this run's search found none
    assert verdicts["range"]["reason"].startswith("Pinned in widest_gap.known.json; this run's search found holds")
    assert verdicts["anonymity"]["status"] == "holds"
    assert verdicts["anonymity"]["reason"].startswith("Pinned in widest_gap.known.json: ")
    assert not verdicts["defined"]["reason"].startswith("Pinned")  # a cell the file does not pin
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "The cells of widest_gap are the verdicts pinned in" in page
    assert re.search(r'title="violated: Pinned in widest_gap\.known\.json; this run', page)


def test_data_links_work_when_the_page_is_copied_alone(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    links = dict(
        (name, data)
        for data, name in re.findall(
            r'<a href="data:(?:text/csv|application/json);base64,([^"]+)" download="([^"]+)">', page
        )
    )
    assert set(links) == {
        f"{s}.csv" for s in ("zero_relevance", "skewness", "skewness_free_mean", "pairing", "gamma")
    } | {"power_table.json", "design.json", "findings.csv", "responses.csv", "contrasts.csv"}
    for name, data in links.items():
        assert base64.b64decode(data) == (report / name).read_bytes()


def test_properties_json_has_the_schema_of_check_json(report, tmp_path):
    document = json.loads((report / "properties.json").read_text())
    assert set(document) == {"note", "verdicts"}
    assert (
        main(
            [
                "check",
                "--all",
                "--quiet",
                "--property",
                "range",
                "--max-examples",
                "2",
                "--json",
                str(tmp_path / "v.json"),
            ]
        )
        == 0
    )
    checked = json.loads((tmp_path / "v.json").read_text())
    assert set(checked) == {"note", "verdicts"}
    assert set(checked["verdicts"][0]) == set(document["verdicts"][0])


# --- index.html in a real browser -------------------------------------------------------------
# Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (urllib, loopback only),
# so no Python browser package is needed. Skipped where chromium or chromedriver is absent; the
# Debian packages are `chromium` and `chromium-driver`.


def _webdriver(port, method, path, body=None):
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["value"]


def _in_chromium(page, script, *, widths=(1280,)):
    """Run ``script`` on ``page`` in headless Chromium at each window width; return {width: value}."""
    import shutil
    import socket
    import subprocess
    import time

    driver = shutil.which("chromedriver")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not driver or not browser:
        pytest.skip("headless Chromium not installed (Debian: apt-get install chromium chromium-driver)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = {}
    try:
        for _ in range(100):
            try:
                _webdriver(port, "GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        for width in widths:
            options = {
                "binary": browser,
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    f"--window-size={width},1000",
                ],
            }
            session = _webdriver(
                port,
                "POST",
                "/session",
                {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}},
            )["sessionId"]
            try:
                _webdriver(port, "POST", f"/session/{session}/url", {"url": page.resolve().as_uri()})
                # The page is several MB (embedded images and data); on a loaded machine navigation
                # can return before parsing ends, so wait until it is complete and every image decoded.
                for _ in range(600):
                    if _webdriver(port, "POST", f"/session/{session}/execute/sync", {"script": _READY, "args": []}):
                        break
                    time.sleep(0.1)
                results[width] = _webdriver(
                    port, "POST", f"/session/{session}/execute/sync", {"script": script, "args": []}
                )
            finally:
                _webdriver(port, "DELETE", f"/session/{session}")
    finally:
        process.terminate()
        process.wait(timeout=10)
    return results


_READY = "return document.readyState === 'complete' && Array.from(document.images).every(i => i.complete);"

_LAYOUT = """
const wrap = document.getElementById('verdict-matrix');
const first = document.querySelector('.verdicts tbody th');
const sweep = document.getElementById('zero_relevance');
const found = document.getElementById('findings');
return {images: Array.from(document.images, i => [i.complete, i.naturalWidth, i.clientWidth]),
        inner: window.innerWidth, page: document.documentElement.scrollWidth,
        matrix: [wrap.clientWidth, wrap.scrollWidth], sticky: getComputedStyle(first).position,
        order: found.getBoundingClientRect().top < sweep.getBoundingClientRect().top
               && sweep.getBoundingClientRect().top < wrap.getBoundingClientRect().top,
        text: document.body.innerText};
"""


def test_index_html_in_headless_chromium_at_800_1400_1920_px(report):
    """Images decode, nothing overflows the page, the verdict matrix fits or scrolls by itself.

    At 1400 and 1920 px the whole matrix fits; at any width its measure column is sticky, so a
    matrix that must scroll (a narrow window, more properties) keeps its row names in view.
    """
    for width, got in _in_chromium(report / "index.html", _LAYOUT, widths=(800, 1400, 1920)).items():
        assert len(got["images"]) == 5 + 1, width  # the sweeps and the search-power plot
        assert all(complete and natural > 0 and shown <= got["inner"] for complete, natural, shown in got["images"]), (
            width
        )
        assert got["page"] <= got["inner"], width  # no sideways scrolling of the page
        client, scroll = got["matrix"]
        assert got["sticky"] == "sticky", width
        if width >= 1400:
            assert scroll <= client, width
        assert got["order"], width  # the findings first, then the sweeps, then the matrix
        assert "`" not in got["text"], width


def test_sweep_extra_follows_the_tables_metadata_not_the_name():
    import puf
    from puf.reports.report import sweep_extra
    from puf.reports.sweeps import SWEEPS

    def spread(effectiveness):
        return float(max(effectiveness) - min(effectiveness))

    puf.register(spread, name="spread-hidden", tables=False)
    puf.register(spread, name="spread-as-printed")
    try:
        added = [m.name for m in sweep_extra(SWEEPS["skewness"])]
    finally:
        puf.MEASURES.pop("spread-hidden"), puf.MEASURES.pop("spread-as-printed")
    # tables=False keeps a measure out of the studies whatever its name (it was shown)
    assert "spread-hidden" not in added and "spread-as-printed" in added
    assert not {"puf-as-printed", "me-as-printed"} & set(added)


def test_a_user_measures_cells_carry_their_counterexample_and_informational_cells_stand_out(report):
    markdown = (report / "report.md").read_text(encoding="utf-8")
    line = next(l for l in markdown.splitlines() if l.startswith("- **widest_gap** / scale-invariance"))
    assert "(violated (informational))" in line and "Expected: multiplying all effectiveness" in line
    block = markdown.split(line, 1)[1].split("```")[1]
    assert "counterexample (m = " in block and "effectiveness (before)" in block
    assert "Legend: ✓✓ proven; ✓ holds; i violated (informational)" in markdown
    page = (report / "index.html").read_text(encoding="utf-8")
    hover = re.search(r'title="(violated \(informational\): Expected: multiplying[^"]*)"', page)
    assert hover and "counterexample (m = " in html.unescape(hover.group(1))
    assert "<span class=sr> violated (informational)</span>" in page


def test_the_report_speaks_of_the_product(report):
    from test_product_words import process_words

    found = [
        f"{path.name}:{n}: {match!r}"
        for path in sorted(report.iterdir())
        if path.suffix in (".html", ".md", ".json", ".csv")
        for n, match, _ in process_words(path.read_text(encoding="utf-8"))
    ]
    assert not found, found


def test_known_must_pin_one_of_the_given_measures(tmp_path, capsys):
    (tmp_path / "my_measures.py").write_text(textwrap.dedent(USER_MEASURE))
    other = tmp_path / "other.known.json"
    other.write_text(json.dumps({**PINNED, "measure": "another"}))
    code = main(
        [
            "report",
            "--quick",
            "--quiet",
            "--out",
            str(tmp_path / "o"),
            "--measure",
            f"{tmp_path / 'my_measures.py'}:widest_gap",
            "--known",
            str(other),
        ]
    )
    assert code == 2
    assert "pins measure 'another', which is not a --measure (given: widest_gap)" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # refused before any work
