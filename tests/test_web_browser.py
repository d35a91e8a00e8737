"""The page in a real browser (Debian's headless Chromium via Selenium): play a match to the end by
clicking checkers, analyse a position (Position ID and XGID), analyse and replay an uploaded match,
watch two agents."""

import json
import os
import shutil
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

from selenium.common.exceptions import ElementClickInterceptedException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from bgzero.web.api import create_app  # noqa: E402
from bgzero.web.engine import Engine  # noqa: E402
from tests.web_server import serving  # noqa: E402

SHOTS = os.environ.get("BGZERO_SCREENSHOTS")  # a folder (docs/) to keep the screenshots in


@pytest.fixture(scope="module")
def server():
    with serving(create_app(Engine(["strong", "pubeval", "random"]), default_agent="strong")) as base:
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


def shot(browser, tmp_path, name: str) -> None:
    path = Path(SHOTS or tmp_path) / name
    browser.save_screenshot(str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"


def wait(browser, condition, timeout=20):
    return WebDriverWait(browser, timeout).until(lambda b: b.execute_script(condition))


def test_play_a_match_to_the_end_by_clicking(server, browser, tmp_path):
    browser.get(server)
    wait(browser, "return document.querySelectorAll('#play-agent option').length > 0")
    browser.find_element(By.ID, "play-agent").send_keys("pubeval")
    length = browser.find_element(By.ID, "play-length")
    length.clear()
    length.send_keys("1")
    browser.find_element(By.ID, "play-seed").send_keys("11")
    browser.find_element(By.ID, "play-new").click()
    wait(browser, "return bg.game() !== null")
    clicks = moves = 0
    hinted = False
    for _ in range(400):
        game = browser.execute_script("return bg.game()")
        awaiting = game["awaiting"]
        if awaiting == "over":
            break
        changed = f"return JSON.stringify(bg.game()) !== {json.dumps(json.dumps(game))}"
        if awaiting != "move":
            button = {"roll": "play-roll", "answer": "play-take", "next": "play-next"}[awaiting]
            browser.find_element(By.ID, button).click()
            wait(browser, changed)
        elif not browser.find_element(By.ID, "play-confirm").is_enabled():
            if not hinted:  # once: the hint table, then the picture of play
                browser.find_element(By.ID, "play-hint").click()
                wait(browser, "return document.querySelector('#play-hints table') !== null")
                hinted = True
                shot(browser, tmp_path, "web_play.png")
            play = browser.execute_script("return bg.consistentPlays()[0] || null")
            if play is None:  # the page is between a new position and clearing the last move's hops: look again
                time.sleep(0.2)
                continue
            done = list(map(tuple, browser.execute_script("return bg.hops()")))
            todo = list(map(tuple, play["hops"]))
            for h in done:
                todo.remove(h)
            checker = browser.find_element(By.CSS_SELECTOR, f"circle.player0[data-point='{todo[0][0]}']")
            browser.execute_script("window.scrollTo(0, 0)")  # the board is at the top of the page
            checker.click()
            clicks += 1
            wait(browser, f"return bg.hops().length > {len(done)}")
        else:
            try:
                browser.find_element(By.ID, "play-confirm").click()
            except ElementClickInterceptedException:  # the page was still redrawing: look again
                continue
            moves += 1
            wait(browser, changed)
    status = browser.find_element(By.ID, "play-status").text
    assert "Match over" in status and moves > 0 and clicks >= moves
    assert browser.execute_script("return Math.max(...bg.game().score)") == 1
    mat = browser.execute_script("return fetch(document.getElementById('play-save').href).then(r => r.text())")
    assert " 1 point match" in mat and "pubeval" in mat
    sgf = browser.execute_script("return fetch(document.getElementById('play-sgf').href).then(r => r.text())")
    assert sgf.startswith("(;FF[4]GM[6]") and "PB[pubeval]" in sgf


def test_analyse_a_position(server, browser, tmp_path):
    browser.get(server)
    wait(browser, "return document.querySelectorAll('#pos-agent option').length > 0")
    browser.find_element(By.CSS_SELECTOR, "[data-tab=position]").click()
    browser.find_element(By.ID, "pos-dice").send_keys("31")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves table') !== null")
    first = browser.find_element(By.CSS_SELECTOR, "#pos-moves tr.best td.move").text
    assert first == "8/5 6/5"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#pos-board circle.checker")) > 0
    trials = browser.find_element(By.ID, "pos-trials")
    trials.clear()
    trials.send_keys("72")  # two batches: progress, then the result
    browser.find_element(By.ID, "pos-rollout").click()
    wait(browser, "return document.querySelector('#pos-rollout-out pre') !== null", 120)
    assert '"trials": 72' in browser.find_element(By.CSS_SELECTOR, "#pos-rollout-out pre").text
    browser.find_element(By.ID, "pos-dice").clear()
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-cube .cube-action') !== null")
    assert browser.find_element(By.CSS_SELECTOR, "#pos-cube .cube-action").text == "no double"
    browser.find_element(By.ID, "pos-dice").send_keys("64")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves table') !== null")
    shot(browser, tmp_path, "web_position.png")
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"  # the start, 31 to play: the roll comes with it
    browser.find_element(By.ID, "pos-dice").clear()
    browser.find_element(By.ID, "pos-id").clear()
    browser.find_element(By.ID, "pos-id").send_keys(xgid)
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.querySelector('#pos-moves b') !== null"
                  " && document.querySelector('#pos-moves b').textContent.startsWith('3-1')")
    assert browser.find_element(By.CSS_SELECTOR, "#pos-moves tr.best td.move").text == "8/5 6/5"
    browser.find_element(By.ID, "pos-id").send_keys("x")
    browser.find_element(By.CSS_SELECTOR, "#pos-form button:not([type])").click()
    wait(browser, "return document.getElementById('error').textContent.includes('malformed XGID')")


def test_watch_and_replay_an_upload(server, browser, tmp_path):
    browser.get(server)
    wait(browser, "return document.querySelectorAll('#watch-a option').length > 0")
    browser.find_element(By.CSS_SELECTOR, "[data-tab=watch]").click()
    browser.find_element(By.CSS_SELECTOR, "#watch-form button").click()
    wait(browser, "return document.querySelector('#watch-viewer .frame-text') !== null", 60)
    browser.find_element(By.CSS_SELECTOR, "#watch-viewer [data-step=last]").click()  # it was playing: jump to the end
    assert "wins" in browser.find_element(By.CSS_SELECTOR, "#watch-viewer .frame-text").text
    mat = browser.execute_script(
        "return fetch('/api/watch', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({a: 'strong', b: 'pubeval', length: 1, seed: 2})}).then(r => r.json()).then(d => d.mat)")
    path = tmp_path / "watched.mat"
    path.write_text(mat)
    browser.find_element(By.CSS_SELECTOR, "[data-tab=match]").click()
    browser.find_element(By.ID, "match-file").send_keys(str(path))
    wait(browser, "return document.querySelector('#match-viewer .frame-count') !== null", 120)
    stats = browser.find_element(By.ID, "match-stats").text
    assert "strong at 0-ply" in stats and "PR" in stats and "Luck" in stats and "pubeval" in stats
    assert browser.find_elements(By.CSS_SELECTOR, "#match-errors tr td.move")
    for _ in range(6):
        browser.find_element(By.CSS_SELECTOR, "#match-viewer [data-step='1']").click()
    assert browser.find_element(By.CSS_SELECTOR, "#match-viewer .frame-count").text.startswith("7 /")
    shot(browser, tmp_path, "web_match.png")
    browser.switch_to.frame(browser.find_element(By.ID, "match-report"))  # the HTML report, boards and all
    assert "Match analysis" in browser.find_element(By.TAG_NAME, "h1").text
    assert browser.find_elements(By.CSS_SELECTOR, "div.error svg")
    browser.switch_to.default_content()
