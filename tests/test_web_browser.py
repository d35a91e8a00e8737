"""The page in a real browser (Debian's headless Chromium via Selenium): a match played to the end by
dragging checkers, drags on the board (from the bar too), uploads whose names carry script, the bar's
stacks, the tabs at phone width, a rollout cancelled and one shown as a table, analyse a position
(Position ID and XGID, with its cube and score), analyse an upload and step through its errors, watch."""

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
webdriver = pytest.importorskip("selenium.webdriver")
pytest.importorskip("uvicorn")
CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
    pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
                allow_module_level=True)

from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from bgzero.errors import ConfigError  # noqa: E402
from bgzero.match.mat import parse_match  # noqa: E402
from bgzero.web.api import create_app  # noqa: E402
from bgzero.web.engine import Engine  # noqa: E402
from bgzero.web.watch import frames  # noqa: E402
from tests.web_server import serving  # noqa: E402

SHOTS = os.environ.get("BGZERO_SCREENSHOTS")  # a folder (docs/) to keep the screenshots in
MATCH_SEED = 1  # a 3-point match against strong with doubles rolled, a double taken, forced moves, ended by a bear-off


@pytest.fixture(scope="module")
def server():
    with serving(create_app(Engine(["strong", "pubeval", "random"]), default_agent="strong")) as base:
        yield base


class SlowRollout:
    """A rollout runner that reports progress in all its plays' trials, and raises on a marked position."""

    def __init__(self):
        self.stopped = threading.Event()

    def __call__(self, request, progress):
        total = request.trials * (request.top + 1)
        for done in range(0, total + 1, max(total // 50, 1)):
            progress(done, total, {"se": 0.01})
            if request.seed == 13:
                raise ConfigError("<img/src/onerror=window.pwned=3> rollout failed")
            time.sleep(0.2)
        se = 0.01 if request.trials > 1 else None  # one trial: no standard error, sent as null
        return {"probs": [0.5, 0.1, 0.0, 0.1, 0.0], "probs_se": [se] * 5, "equity": 0.0, "equity_se": se,
                "trials": request.trials}


@pytest.fixture(scope="module")
def fake_server():
    with serving(create_app(Engine(["pubeval"]), default_agent="pubeval", rollout=SlowRollout())) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def shot(browser, tmp_path, name: str, width=1200, height=800, scroll: str | None = None) -> None:
    """A picture of the window at ``width`` x ``height``, scrolled by the script ``scroll`` once at that size."""
    path = Path(SHOTS or tmp_path) / name
    browser.set_window_size(width, height)
    try:
        if scroll:
            browser.execute_script(scroll)
        browser.save_screenshot(str(path))
    finally:
        browser.set_window_size(1300, 1000)
    assert path.read_bytes()[:4] == b"\x89PNG"


def wait(browser, condition, timeout=30):
    """Wait for ``condition`` (JavaScript); a timeout names it and the error the page shows, if any."""
    try:
        return WebDriverWait(browser, timeout).until(lambda b: b.execute_script(condition))
    except TimeoutException:
        shown = browser.execute_script("return [...document.querySelectorAll('.error, .partial, #pos-partial')]"
                                       ".map(e => e.textContent).filter(Boolean).join(' | ')")
        raise AssertionError(f"waited {timeout} s for: {condition}; the page's errors and progress: {shown!r}") from None


def open_page(browser, base):
    """The page as a new visitor sees it: no saved state and no cookie, so no earlier test's game resumes."""
    browser.get(base)
    browser.execute_script("localStorage.clear()")
    browser.delete_all_cookies()
    browser.get(base)
    wait(browser, "return window.bg && bg.ready")


def drag(browser, source, target):
    """A real drag: pointer down on ``source``, moves, pointer up over ``target``."""
    ActionChains(browser).move_to_element(source).click_and_hold().move_by_offset(5, 5) \
        .move_to_element(target).release().perform()


def point_hit(browser, p):
    return browser.find_element(By.CSS_SELECTOR, f"#play-board [data-point='{p}']" if p == 0
                                else f"#play-board rect.point-hit[data-point='{p}']")


def new_game(browser, agent="pubeval", length=1, seed=11):
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element(By.ID, "play-agent").send_keys(agent)
    field = browser.find_element(By.ID, "play-length")
    field.clear()
    field.send_keys(str(length))
    seed_field = browser.find_element(By.ID, "play-seed")
    seed_field.clear()
    seed_field.send_keys(str(seed))
    browser.find_element(By.ID, "play-new").click()
    wait(browser, "return bg.game() !== null && !bg.busy()", 60)


def settled(browser):
    wait(browser, "return !bg.busy()", 60)
    return browser.execute_script("return bg.game()")


def until_moving(browser):
    """Roll (and take) until the person has a move to compose."""
    for _ in range(50):
        game = settled(browser)
        if game["awaiting"] == "move":
            return game
        browser.find_element(By.ID, {"roll": "play-roll", "answer": "play-take", "next": "play-next"}[game["awaiting"]]).click()
        time.sleep(0.2)
    raise AssertionError("no move to make")


def test_a_checker_dragged_to_its_point_moves_there(server, browser):
    open_page(browser, server)
    new_game(browser)
    game = until_moving(browser)
    hop = next(p["hops"][0] for p in game["legal"] if p["hops"])
    checker = browser.find_elements(By.CSS_SELECTOR, f"#play-board circle.player0[data-point='{hop[0]}']")[-1]
    drag(browser, checker, point_hit(browser, hop[1]))
    wait(browser, "return bg.hops().length > 0", 10)
    assert browser.execute_script("return bg.hops()") == [hop], browser.find_element(By.ID, "play-partial").text
    assert "No legal way" not in browser.find_element(By.ID, "play-partial").text
    browser.find_element(By.ID, "play-undo").click()  # undo, up to Confirm
    assert browser.execute_script("return bg.hops()") == []


def test_a_drag_from_the_bar_reports_its_point(server, browser):
    open_page(browser, server)
    browser.execute_script("""
      const board = [[0,0,0,0,0,4,0,3,0,0,0,0,5,0,0,0,0,0,0,0,0,0,0,2,1], [0,0,0,0,0,5,0,3,0,0,0,0,5,0,0,0,0,0,0,0,0,0,0,2,0]];
      window.dragged = [];
      drawBoard(document.getElementById('play-board'), board, {interactive: true, onPoint: (p) => dragged.push(['click', p]),
        onDrag: (f, t) => dragged.push([f, t]), targets: () => [22]});""")
    bar = browser.find_element(By.CSS_SELECTOR, "#play-board circle.player0[data-point='25']")
    ActionChains(browser).move_to_element(bar).click_and_hold().move_by_offset(5, 5).perform()
    assert browser.execute_script("return [...document.querySelectorAll('#play-board .target')].map(n => n.dataset.target)") == ["22"]
    ActionChains(browser).move_to_element(point_hit(browser, 22)).release().perform()
    assert browser.execute_script("return dragged") == [[25, 22]]


def test_the_held_checker_lights_its_points_and_movable_checkers_are_ringed(server, browser):
    open_page(browser, server)
    new_game(browser, seed=5)
    game = until_moving(browser)
    board = game["board"][0]
    sources = {h[0] for p in game["legal"] for h in p["hops"] if board[24 if h[0] == 25 else h[0] - 1]}
    ringed = browser.execute_script(
        "return [...document.querySelectorAll('#play-board circle.movable')].map(c => Number(c.dataset.point))")
    assert sorted(ringed) == sorted(sources)
    hop = next(p["hops"][0] for p in game["legal"] if p["hops"])
    checker = browser.find_elements(By.CSS_SELECTOR, f"#play-board circle.player0[data-point='{hop[0]}']")[-1]
    ActionChains(browser).move_to_element(checker).click_and_hold().move_by_offset(5, 5).perform()
    lit = browser.execute_script("return [...document.querySelectorAll('#play-board .target')].map(n => Number(n.dataset.target))")
    ActionChains(browser).release().perform()
    assert hop[1] in lit and hop[0] not in lit


def test_a_click_on_a_die_swaps_them(server, browser):
    open_page(browser, server)
    new_game(browser, seed=5)
    game = until_moving(browser)
    if game["dice"][0] == game["dice"][1]:
        pytest.skip("doubles: nothing to swap")  # seed 5's first roll is not a double
    before = browser.execute_script("return [...document.querySelectorAll('#play-board .die')].map(d => d.dataset.value)")
    browser.find_element(By.CSS_SELECTOR, "#play-board .die[data-die='0']").click()
    after = browser.execute_script("return [...document.querySelectorAll('#play-board .die')].map(d => d.dataset.value)")
    assert after == before[::-1] and before[0] > before[1]


def test_play_before_any_game_says_so(server, browser):
    open_page(browser, server)
    browser.find_element(By.ID, "play-move").send_keys("8/5 6/5")
    browser.find_element(By.CSS_SELECTOR, "#play-typed button").click()
    wait(browser, "return document.getElementById('error').textContent !== ''")
    assert browser.find_element(By.ID, "error").text.startswith("Start a game first")


def test_a_game_survives_a_reload(server, browser):
    open_page(browser, server)
    new_game(browser, seed=7)
    game = until_moving(browser)
    browser.refresh()
    wait(browser, "return window.bg && bg.ready && bg.game() !== null")
    again = browser.execute_script("return bg.game()")
    assert again["id"] == game["id"] and again["board"] == game["board"] and again["dice"] == game["dice"]
    assert "resumed" in browser.find_element(By.ID, "play-partial").text


def test_bar_stacks_of_three_stay_apart(server, browser):
    open_page(browser, server)
    boxes = browser.execute_script("""
      const board = [[0,0,0,0,0,5,0,3,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,2,3], [0,0,0,0,0,5,0,3,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,2,3]];
      const out = [];
      for (const owner of [-1, 0, 1]) {
        const svg = document.getElementById('play-board');
        drawBoard(svg, board, {cube: {value: 2, owner}});
        const shapes = [...svg.querySelectorAll('circle.checker[data-point="25"], circle.player1')]
          .filter((c) => Number(c.getAttribute('cx')) === 345).map((c) => c.getBBox())
          .concat([svg.querySelector('.cube rect').getBBox()]);
        out.push(shapes.map((b) => [b.x, b.y, b.width, b.height]));
      }
      return out;""")
    for shapes in boxes:  # each owner of the cube: six bar checkers and the cube, none overlapping another
        assert len(shapes) == 7
        for i, a in enumerate(shapes):
            for b in shapes[i + 1:]:
                assert a[1] + a[3] <= b[1] + 0.5 or b[1] + b[3] <= a[1] + 0.5, (a, b)


def test_the_tabs_stay_on_screen_at_phone_width(server, browser):
    open_page(browser, server)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 375, "height": 740, "deviceScaleFactor": 1,
                                                                    "mobile": True})
    try:
        rights = browser.execute_script(
            "return [...document.querySelectorAll('nav .tab, nav a')].map(t => t.getBoundingClientRect().right)")
        width = browser.execute_script("return window.innerWidth")
        assert width == 375 and len(rights) == 5 and max(rights) <= width
        browser.find_element(By.CSS_SELECTOR, "[data-tab=watch]").click()
        assert browser.find_element(By.ID, "watch").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


EVIL = ["<img/src/onerror=window.pwned=1>", "<script>window.pwned=2</script>"]


def test_an_upload_whose_names_carry_script_shows_them_as_text(server, browser, tmp_path):
    open_page(browser, server)
    mat = browser.execute_script(
        "return fetch('/api/watch', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({a: 'pubeval', b: 'random', length: 1, seed: 2})}).then(r => r.json()).then(d => d.mat)")
    assert parse_match(mat).names == ("pubeval", "random")
    path = tmp_path / "evil.mat"  # written by hand: bgzero's own .mat writer keeps only safe characters in names
    path.write_text(mat.replace("pubeval :", f"{EVIL[0]} :").replace("random :", f"{EVIL[1]} :"))
    assert parse_match(path.read_text()).names == tuple(EVIL)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=match]").click()
    browser.find_element(By.ID, "match-file").send_keys(str(path))
    wait(browser, "return document.querySelector('#match-viewer .frame-count') !== null", 120)
    time.sleep(0.5)  # an onerror would have fired by now
    assert browser.execute_script("return window.pwned === undefined")
    assert not browser.find_elements(By.CSS_SELECTOR, "#match img, #match-stats script, #match-viewer script")
    stats = browser.find_element(By.ID, "match-stats").text
    heading = browser.find_element(By.CSS_SELECTOR, "#match-viewer .match-heading").text
    for name in EVIL:
        assert name in stats and name in heading
    report = browser.find_element(By.ID, "match-report")  # the HTML report: escaped, and sandboxed besides
    wait(browser, "return !!document.getElementById('match-report').srcdoc", 120)
    assert report.get_attribute("sandbox") == ""
    browser.switch_to.frame(report)
    try:
        time.sleep(0.5)
        assert not browser.find_elements(By.CSS_SELECTOR, "img, script")
        text = browser.find_element(By.TAG_NAME, "body").text
        assert all(name in text for name in EVIL)
    finally:
        browser.switch_to.default_content()
    assert browser.execute_script("return window.pwned === undefined")


def test_a_rollout_can_be_cancelled_and_counts_the_trials_asked_for(fake_server, browser):
    open_page(browser, fake_server)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    browser.find_element(By.ID, "pos-rollout").click()
    wait(browser, "return document.getElementById('pos-progress') && document.getElementById('pos-progress').value > 0")
    assert not browser.find_element(By.ID, "pos-rollout").is_enabled()
    progress = browser.find_element(By.ID, "pos-partial").text
    done = int(progress.split(" / ")[0])
    assert progress.split(" / ")[1].startswith("1296 trials") and 0 < done < 1296
    browser.find_element(By.ID, "pos-cancel").click()
    wait(browser, "return document.getElementById('pos-rollout-out').textContent.includes('Rollout cancelled')")
    assert browser.find_element(By.ID, "pos-rollout").is_enabled()
    assert not browser.find_element(By.ID, "pos-cancel").is_enabled()


def test_a_rollout_error_is_text(fake_server, browser):
    open_page(browser, fake_server)
    browser.execute_script("""  // the page sends no seed: this one asks the fake runner to fail
      window.fetchOriginal = window.fetch;
      window.fetch = (url, init) => url === '/api/rollout'
        ? fetchOriginal(url, {...init, body: JSON.stringify({...JSON.parse(init.body), seed: 13})}) : fetchOriginal(url, init);""")
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    browser.find_element(By.ID, "pos-rollout").click()
    wait(browser, "return document.querySelector('#pos-rollout-out .error') !== null")
    time.sleep(0.5)
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.find_element(By.CSS_SELECTOR, "#pos-rollout-out .error").text == "<img/src/onerror=window.pwned=3> rollout failed"


def test_a_one_trial_rollout_shows_no_standard_error(fake_server, browser):
    open_page(browser, fake_server)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    trials = browser.find_element(By.ID, "pos-trials")
    trials.clear()
    trials.send_keys("1")
    browser.find_element(By.ID, "pos-rollout").click()
    wait(browser, "return document.querySelector('#pos-rollout-out table.rollout') !== null")
    cells = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#pos-rollout-out table.rollout td")]
    assert cells == ["before the roll", "50.0", "10.0", "0.0", "10.0", "0.0", "+0.000", "n/a"]
    assert not browser.find_elements(By.CSS_SELECTOR, "#pos-rollout-out .error")


def test_analyse_a_position(server, browser, tmp_path):
    open_page(browser, server)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    browser.find_element(By.ID, "pos-dice").send_keys("31")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves table') !== null", 120)  # the first use loads the network
    assert browser.find_element(By.CSS_SELECTOR, "#pos-moves tr.best td.move").text == "8/5 6/5"
    assert browser.find_elements(By.CSS_SELECTOR, "#pos-board circle.checker")
    browser.find_element(By.CSS_SELECTOR, "#pos-moves tr.best").click()  # the play drawn on the board
    assert len(browser.find_elements(By.CSS_SELECTOR, "#pos-board line.arrow")) == 2
    trials = browser.find_element(By.ID, "pos-trials")
    trials.clear()
    trials.send_keys("72")  # two batches: progress, then the result
    browser.find_element(By.ID, "pos-rollout").click()
    wait(browser, "return document.querySelector('#pos-rollout-out table.rollout') !== null", 180)
    table = browser.find_element(By.CSS_SELECTOR, "#pos-rollout-out table.rollout")
    heads = [th.text for th in table.find_elements(By.TAG_NAME, "th")]
    assert heads[:8] == ["play", "win", "w g", "w bg", "l g", "l bg", "equity", "± SE"]
    plays = [td.text for td in table.find_elements(By.CSS_SELECTOR, "td.move")]
    assert plays[0] == "before the roll" and "8/5 6/5" in plays and len(plays) == 6
    assert browser.find_element(By.ID, "pos-partial").text == "72 trials"
    shot(browser, tmp_path, "web_rollout.png", scroll="document.getElementById('pos-rollout-out').scrollIntoView({block: 'end'})")
    browser.find_element(By.ID, "pos-dice").clear()
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:2:1:0:5:10"  # the start, 5-point match at 2-1, cube 2 on top
    browser.find_element(By.ID, "pos-id").clear()
    browser.find_element(By.ID, "pos-id").send_keys(xgid)
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.getElementById('pos-cube').textContent.startsWith('Cube')")
    assert not browser.find_elements(By.CSS_SELECTOR, "#pos-rollout-out table")  # the last position's rollout is gone
    cube = browser.find_element(By.CSS_SELECTOR, "#pos-board .cube")
    assert cube.text == "2" and cube.get_attribute("data-owner") == "1"
    assert browser.find_element(By.CSS_SELECTOR, "#pos-board .length").text == "5-point match"
    assert [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#pos-board .score")] == ["score 1", "score 2"]
    shot(browser, tmp_path, "web_position.png")
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"  # the start, 31 to play: the roll comes with it
    browser.find_element(By.ID, "pos-id").clear()
    browser.find_element(By.ID, "pos-id").send_keys(xgid)
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves b') !== null"
                  " && document.querySelector('#pos-moves b').textContent.startsWith('3-1')")
    assert browser.find_element(By.CSS_SELECTOR, "#pos-moves tr.best td.move").text == "8/5 6/5"
    browser.find_element(By.ID, "pos-id").send_keys("x")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.getElementById('error').textContent.includes('malformed XGID')")


def test_a_match_id_draws_the_score_and_a_doubles_hint_shows_ten_plays(server, browser):
    """PositionID:MatchID draws the match as an XGID does; 42 plays of 1-1 show as 10 rows and the rest counted."""
    open_page(browser, server)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    browser.find_element(By.ID, "pos-id").clear()
    browser.find_element(By.ID, "pos-id").send_keys("4HPwATDgc/ABMA:MAHgACAAIAAE")  # 7-point match, 2-4
    browser.find_element(By.ID, "pos-dice").send_keys("11")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves table') !== null", 120)
    assert browser.find_element(By.CSS_SELECTOR, "#pos-board .length").text == "7-point match"
    assert sorted(e.text for e in browser.find_elements(By.CSS_SELECTOR, "#pos-board .score")) == ["score 2", "score 4"]
    def shown():
        return [e for e in browser.find_elements(By.CSS_SELECTOR, "#pos-moves td.move") if e.is_displayed()]

    assert len(shown()) == 10
    more = browser.find_element(By.CSS_SELECTOR, "#pos-moves td.more")
    assert more.text == "32 more plays"
    more.click()  # the rest, on asking
    assert len(shown()) == 42 and not browser.find_elements(By.CSS_SELECTOR, "#pos-moves td.more")


def test_watch_and_step_through_an_uploads_errors(server, browser, tmp_path):
    open_page(browser, server)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=watch]").click()
    browser.find_element(By.CSS_SELECTOR, "#watch-form button").click()
    wait(browser, "return document.querySelector('#watch-viewer .frame-text') !== null", 120)
    heading = browser.find_element(By.CSS_SELECTOR, "#watch-viewer .match-heading")
    assert "final score" not in heading.text  # not given away while it plays
    browser.find_element(By.CSS_SELECTOR, "#watch-viewer .speed").send_keys("fastest")
    browser.find_element(By.CSS_SELECTOR, "#watch-viewer [data-step=last]").click()
    assert "wins" in browser.find_element(By.CSS_SELECTOR, "#watch-viewer .frame-text").text
    assert "final score" in heading.text
    mat = browser.execute_script(
        "return fetch('/api/watch', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({a: 'strong', b: 'random', length: 1, seed: 2})}).then(r => r.json()).then(d => d.mat)")
    path = tmp_path / "watched.mat"
    path.write_text(mat)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=match]").click()
    browser.find_element(By.ID, "match-file").send_keys(str(path))
    wait(browser, "return document.querySelector('#match-viewer .frame-count') !== null", 180)
    stats = browser.find_element(By.ID, "match-stats").text
    assert "strong at 0-ply" in stats and "PR" in stats and "Luck" in stats and "random" in stats
    heads = []  # the marked errors, stepped through in the order played
    for k in range(1, 4):
        browser.find_element(By.ID, "error-next").click()
        wait(browser, f"return document.getElementById('match-error-view').dataset.done === '{k}'", 60)
        heads.append(browser.find_element(By.CSS_SELECTOR, "#match-viewer .frame-text").text)
    order = [tuple(map(int, t.split(":")[0].replace("Game ", "").split(", action "))) for t in heads]
    assert order == sorted(order) and len(set(order)) == 3, heads
    rows = browser.find_elements(By.CSS_SELECTOR, "#match-errors tr.clickable")
    checker = next(r for r in rows if r.find_elements(By.TAG_NAME, "td")[2].text)  # a checker play: it has dice
    game, turn = map(int, checker.find_elements(By.TAG_NAME, "td")[0].text.split("."))
    checker.click()
    wait(browser, "return document.getElementById('match-error-view').dataset.done === '4'", 60)
    view = browser.find_element(By.ID, "match-error-view").text
    cells = checker.find_elements(By.TAG_NAME, "td")
    assert cells[3].text in view and cells[4].text in view and "Position ID" in view
    assert browser.find_elements(By.CSS_SELECTOR, "#match-viewer line.arrow.best")
    assert browser.find_element(By.CSS_SELECTOR, "#match-viewer .frame-text").text.startswith(f"Game {game}, action {turn}")
    shot(browser, tmp_path, "web_match.png")
    browser.switch_to.frame(browser.find_element(By.ID, "match-report"))  # the HTML report, boards and all
    assert "Match analysis" in browser.find_element(By.TAG_NAME, "h1").text
    browser.switch_to.default_content()


def drawn_board(browser):
    """The checkers the play board shows, read from the drawing: the (2, 25) rows of the person's view."""
    return browser.execute_script("""
      const svg = document.getElementById('play-board'), rows = [Array(25).fill(0), Array(25).fill(0)];
      const where = (x, y, player) => {
        let p = 25;  // the bar, unless the spot lies on a point
        for (const r of svg.querySelectorAll('rect.point-hit')) {
          const bx = Number(r.getAttribute('x')), by = Number(r.getAttribute('y'));
          if (x > bx && x < bx + 50 && y > by && y < by + 200) p = Number(r.dataset.point);
        }
        return p === 25 ? 24 : player === 0 ? p - 1 : 24 - p;
      };
      const circles = [...svg.querySelectorAll('circle.checker')];
      for (const c of circles) {
        const player = c.classList.contains('player0') ? 0 : 1;
        rows[player][where(Number(c.getAttribute('cx')), Number(c.getAttribute('cy')), player)] += 1;
      }
      for (const t of svg.querySelectorAll('text.count')) {  // a stack taller than drawn says how tall
        const x = Number(t.getAttribute('x')), y = Number(t.getAttribute('y')) - 5;
        const c = circles.find((o) => Number(o.getAttribute('cx')) === x && Number(o.getAttribute('cy')) === y);
        const player = c.classList.contains('player0') ? 0 : 1;
        rows[player][where(x, y, player)] = Number(t.textContent);
      }
      return rows;""")


@pytest.mark.slow
def test_play_a_match_to_the_end_by_dragging(server, browser, tmp_path):
    open_page(browser, server)
    browser.execute_script("""window.movingSeen = 0;
      new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes)
        if (n.classList && n.classList.contains('moving')) movingSeen++; })
        .observe(document.getElementById('play-board'), {childList: true});""")
    new_game(browser, agent="strong", length=3, seed=MATCH_SEED)
    seen = {"doubles": 0, "take": 0, "hint": 0, "drags": 0, "score": 0}
    for _ in range(3000):
        game = settled(browser)
        awaiting = game["awaiting"]
        if awaiting == "over":
            break
        score = browser.find_element(By.ID, "play-score").text
        assert score.startswith(f"3-point match: you {game['score'][0]}, strong {game['score'][1]}")
        assert ("Crawford" in score) == game["crawford"]
        assert browser.find_element(By.CSS_SELECTOR, "#play-board .length").text == "3-point match"
        pips = [int(e.get_attribute("data-pips")) for e in browser.find_elements(By.CSS_SELECTOR, "#play-board .pips")]
        shown = browser.execute_script("return bg.game().awaiting === 'move' ? applyHops(bg.game().board, 0, bg.hops()) : bg.game().board")
        assert sorted(pips) == sorted(sum(n * (i + 1) for i, n in enumerate(row)) for row in shown)
        changed = f"return !bg.busy() && JSON.stringify(bg.game()) !== {json.dumps(json.dumps(game))}"
        if awaiting == "answer":  # the bot's double, shown at its new value
            assert browser.find_element(By.CSS_SELECTOR, "#play-board .cube.offered").text == str(2 * game["cube"]["value"])
            seen["take"] += 1
            browser.find_element(By.ID, "play-take").click()
            wait(browser, changed, 120)
        elif awaiting != "move":
            browser.find_element(By.ID, {"roll": "play-roll", "next": "play-next"}[awaiting]).click()
            wait(browser, changed, 120)
        elif browser.find_element(By.ID, "play-confirm").is_enabled():
            browser.find_element(By.ID, "play-confirm").click()
            wait(browser, changed, 120)
        elif not seen["hint"] and not browser.execute_script("return bg.hops().length"):
            browser.find_element(By.ID, "play-hint").click()
            wait(browser, "return document.querySelector('#play-hints tr.clickable') !== null", 120)
            row = browser.find_element(By.CSS_SELECTOR, "#play-hints tr.clickable")
            row.click()  # the play on the board, then played
            assert browser.execute_script("return bg.hops().length") > 0 and browser.find_element(By.ID, "play-confirm").is_enabled()
            shot(browser, tmp_path, "web_hint.png", scroll="document.getElementById('play-hints').scrollIntoView({block: 'end'})")
            seen["hint"] += 1
            row.find_element(By.CSS_SELECTOR, "button.play-row").click()
            wait(browser, changed, 120)
        else:
            if game["dice"][0] == game["dice"][1]:
                seen["doubles"] += not browser.execute_script("return bg.hops().length")
            play = browser.execute_script("return bg.consistentPlays()[0]")
            done = list(map(tuple, browser.execute_script("return bg.hops()")))
            todo = list(map(tuple, play["hops"]))
            for hop in done:
                todo.remove(hop)
            source = browser.find_elements(By.CSS_SELECTOR, f"#play-board circle.player0[data-point='{todo[0][0]}']")[-1]
            browser.execute_script("window.scrollTo(0, 0)")
            drag(browser, source, point_hit(browser, todo[0][1]))
            seen["drags"] += 1
            wait(browser, f"return bg.hops().length > {len(done)}", 20)
            if seen["score"] < 1 + (game["score"] != [0, 0]):  # the first drag, then the first with a score
                seen["score"] = 1 + (game["score"] != [0, 0])
                shot(browser, tmp_path, "web_play.png")
    status = browser.find_element(By.ID, "play-status").text
    assert "Match over" in status, status
    final = browser.execute_script("return bg.game()")
    assert max(final["score"]) >= 3
    assert seen["doubles"] and seen["take"] and seen["hint"] and seen["drags"], seen
    assert browser.execute_script("return bg.forced()") > 0 and browser.execute_script("return movingSeen") > 0
    mat = browser.execute_script("return fetch(document.getElementById('play-save').href).then(r => r.text())")
    assert " 3 point match" in mat and "strong" in mat
    engine_board = frames(parse_match(mat))[-1]["board"]  # the engine's replay of the saved match, the person's view
    assert sum(engine_board[0]) == 0 or sum(engine_board[1]) == 0  # the last game ended by bearing off
    assert final["board"] == engine_board and drawn_board(browser) == engine_board
