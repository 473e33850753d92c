"""The table in a real headless Chromium (the OS's chromium and chromedriver, driven by
Selenium): whole games played by clicking, and a picture of each game's table.

Skips, saying why, where no browser can be had. ``HOT_ENVS_SCREENSHOTS=DIR`` saves the pictures
in DIR (docs/images for the docs) instead of a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="browser tests need selenium")
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def browser():
    binary = next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("no chromium and chromedriver here (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # failed loads, for /rules
    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    except WebDriverException as error:
        pytest.skip(f"chromium does not start here: {error.msg}")
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def wait_for(check, timeout: float = 30.0):
    """Poll ``check()`` until it returns something truthy (stale elements count as not yet)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            result = check()
        except StaleElementReferenceException:
            result = None
        if result:
            return result
        time.sleep(0.03)
    raise AssertionError(f"timed out waiting for {check.__doc__ or check}")


def start_from_the_lobby(browser, url: str, game: str, players: int | None = None) -> None:
    """Fill in the lobby's play form: ``game`` against random opponents, fastest pace."""
    browser.get(url + "/")
    form = wait_for(
        lambda: (
            browser.find_element(By.ID, "play-form").is_displayed()
            and browser.find_element(By.ID, "play-form")
        )
    )
    Select(form.find_element(By.NAME, "game")).select_by_value(game)
    if players is not None:
        field = form.find_element(By.NAME, "players")
        field.clear()
        field.send_keys(str(players))
    opponent = form.find_element(By.NAME, "opponent")
    opponent.clear()
    opponent.send_keys("random")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "/table/" in browser.current_url)
    browser.execute_script("document.querySelector('#pace').value = 0")


def result_text(browser) -> str:
    box = browser.find_element(By.ID, "result")
    return box.is_displayed() and box.text


# Waits inside the page (one WebDriver command per wait instead of a poll every few ms through
# the driver): until no request is out (``data-busy``) and the page shows the result or offers
# one of ``arguments[0]``; returns [-1, []] for the result, else [which selector, its elements].
NEXT = """
const [selectors, done] = [arguments[0], arguments[arguments.length - 1]];
const look = () => {
  if (!document.body.dataset.busy) {
    const result = document.querySelector("#result");
    if (!result.hidden && result.innerText.trim()) return done([-1, []]);
    for (const [which, selector] of selectors.entries()) {
      const found = document.querySelectorAll(selector);
      if (found.length) return done([which, Array.from(found)]);
    }
  }
  setTimeout(look, 10);
};
look();
"""
MOVES = (  # a button, a card (HK; HL exchange), an HL card that goes to a stage
    "#board button.move",
    "#board .hand .card.legal[data-action]",
    "#board .luft .hand .card.legal",
)


def next_in_page(browser, selectors: tuple[str, ...], timeout: float) -> tuple[int, list]:
    """Which of ``selectors`` matches first and its elements, or (-1, []) once the game is
    over; waits inside the page, up to ``timeout`` seconds."""
    browser.set_script_timeout(timeout)
    return tuple(browser.execute_async_script(NEXT, list(selectors)))


def play_by_clicking(browser, limit: float) -> str:
    """Click legal moves until the game is over: a button, a card (HK; HL exchange), or an HL
    card and then a highlighted stage side. Returns the result's text."""
    end = time.monotonic() + limit
    clicks = 0
    while time.monotonic() < end:
        which, found = next_in_page(browser, MOVES, max(end - time.monotonic(), 1))
        if which < 0:
            return result_text(browser)
        if which < len(MOVES) - 1:
            found[0].click()
        else:  # an HL card that goes to a stage: choose it, then a side
            found[-1].click()
            which, sides = next_in_page(browser, ("#board .side.target",), 5)
            assert which == 0, "no side to choose"
            sides[0].click()
        clicks += 1  # its request is out (busy) when the click returns
    raise AssertionError(f"no end after {clicks} clicks in {limit} s")


def test_a_heisse_karten_game_played_by_clicking(browser, client):
    start_from_the_lobby(browser, client.url, "heisse-karten", players=2)
    verdict = play_by_clicking(browser, 90)
    assert any(word in verdict for word in ("You win", "You lose", "A draw", "A shared win"))
    assert (
        "Scores: You " in verdict and "Rewards: You " in verdict
    )  # the player is "You" throughout
    felt = browser.find_element(By.CSS_SELECTOR, "#board .felt").text
    assert "The game is over" in felt and "leads" not in felt  # nobody leads a trick after the end
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .lead")
    # a reload shows the same finished game (the table id is in the address)
    browser.refresh()
    wait_for(lambda: result_text(browser) == verdict)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#last .last-trick .card")) == 2


def test_a_heisse_luft_game_played_by_clicking(browser, client):
    start_from_the_lobby(browser, client.url, "heisse-luft")
    verdict = play_by_clicking(browser, 240)
    assert any(word in verdict for word in ("You win", "You lose", "A draw", "No winner"))


def test_an_illegal_looking_click_changes_nothing(browser, client):
    """A card that cannot be played now is not clickable: the page sends no move."""
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-karten", "seats": ["random", "human"], "seed": 1}
    )
    # The page plays the agent's move after its pace: 10 minutes here, so only the click could
    # change the step (at the default 0.7 s a busy machine saw the agent's move instead).
    browser.get(f"{client.url}/table/{created['id']}?autoplay=600")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board .hand .card"))
    step = client.ok("GET", f"/api/games/{created['id']}")["step"]
    assert step == 0
    browser.find_elements(By.CSS_SELECTOR, "#board .hand .card:not(.legal)")[0].click()
    time.sleep(0.2)
    assert client.ok("GET", f"/api/games/{created['id']}")["step"] == step


def screenshot(
    browser, client, game: str, seats: list[str], seed: int, moves: int, name: str
) -> Path:
    """A table after ``moves`` moves (random legal ones for the human), as a PNG."""
    import random

    created = client.ok("POST", "/api/games", {"game": game, "seats": seats, "seed": seed})
    game_id, rng, snap = created["id"], random.Random(seed), created
    while snap["step"] < moves or snap["agent_to_move"]:
        if snap["agent_to_move"]:
            snap = client.ok("POST", f"/api/games/{game_id}/step")
        else:
            action = rng.choice(snap["moves"])["action"]
            snap = client.ok("POST", f"/api/games/{game_id}/move", {"action": action})
    browser.get(f"{client.url}/table/{game_id}")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board .hand .card.legal"))
    if game == "heisse-luft":  # show a chosen card and where it may go
        browser.find_elements(By.CSS_SELECTOR, "#board .hand .card.legal")[0].click()
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board .side.target"))
    folder = Path(os.environ.get("HOT_ENVS_SCREENSHOTS") or client.screenshots)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    height = browser.execute_script("return document.documentElement.scrollHeight")
    metrics = {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # the whole page
    assert browser.save_screenshot(str(path))
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return path


def test_a_screenshot_of_each_games_table(browser, client, tmp_path):
    client.screenshots = tmp_path
    pictures = [
        screenshot(
            browser, client, "heisse-luft", ["human", "heuristic"], 7, 23, "web_heisse_luft.png"
        ),
        screenshot(
            browser,
            client,
            "heisse-karten",
            ["human", "heuristic", "random", "heuristic"],
            5,
            14,
            "web_heisse_karten.png",
        ),
    ]
    for path in pictures:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000


def test_a_trophy_is_drawn_not_an_emoji(browser, client, store):
    """HL-6: a won trophy shows as a drawn cup beside its suit, in any font."""
    from hot_envs.heisse_luft import State

    body = {"game": "heisse-luft", "seats": ["human", "random"], "seed": 0}
    created = client.ok("POST", "/api/games", body)
    table = store.get(created["id"])
    d = table.state.to_dict()
    # A fixed deal: 1 in 20 leaves fewer than four spade prizes in the deck to move.
    assert d["prize_deck"].count("S") >= 4
    d["trophies"][0], d["trophy_cards"][0]["S"] = ["S"], 4  # HL-6.1: the spades trophy costs 4
    for _ in range(4):
        d["prize_deck"].remove("S")
    table.state = State.from_dict(d)
    browser.get(f"{client.url}/table/{created['id']}")
    trophy = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board .mine .trophy"))[0]
    icon = trophy.find_element(By.CSS_SELECTOR, "svg.trophy-icon")
    assert icon.size["width"] >= 10 and icon.size["height"] >= 10
    assert trophy.text == "♠" and "\U0001f3c6" not in browser.page_source


def test_the_lobby_says_what_a_chosen_seed_shows(browser, client):
    browser.get(client.url + "/")
    hints = wait_for(
        lambda: [
            h for h in browser.find_elements(By.CSS_SELECTOR, ".seed-hint") if h.is_displayed()
        ]
    )
    assert len(hints) == 2 and all("same cards" in hint.text for hint in hints)


def test_the_rules_page_loads_without_a_missing_file(browser, client):
    browser.get_log("browser")  # forget what came before
    browser.get(client.url + "/rules")
    wait_for(lambda: browser.find_elements(By.ID, "HL-4.3"))
    time.sleep(0.3)
    failed = [
        entry["message"]
        for entry in browser.get_log("browser")
        if "Failed to load" in entry["message"]
    ]
    assert failed == []
