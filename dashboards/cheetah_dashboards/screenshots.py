"""The browser half of the headless check: every dashboard rendered in Chromium, no error box.

Debian's chromium + chromium-driver (156) through Selenium, headless with the flags of
docs/ENVIRONMENT.md ("Superset and Chromium") and a fresh profile. A dashboard counts as rendered once every chart
slot holds a finished chart (no spinner left); then its error boxes are collected and the
whole page is saved as PNG.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from cheetah_dashboards.errors import DashboardsError

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
RENDER_TIMEOUT_S = 120.0
WIDTH = 1600

# JavaScript run in the page: how many chart slots exist, how many still load, and the text of
# every error box Superset draws (chart errors, failed queries, error toasts).
_STATE_JS = """
const slots = document.querySelectorAll('.dashboard-component-chart-holder');
const loading = document.querySelectorAll(
  '.dashboard-component-chart-holder .loading, .dashboard-component-chart-holder [data-test="loading-indicator"]');
const rendered = [...slots].filter(s => s.querySelector(
  'svg, canvas, table, .superset-legacy-chart-big-number, [data-test="big-number"], .big_number_total, '
  + '.header-line, .empty-state, .ant-empty, [role="alert"]')).length;
const errorNodes = document.querySelectorAll(
  '[role="alert"], .ant-alert-error, [data-test="error-tooltip"], .alert-danger, [data-test="toast-container"] .toast--danger');
const errors = [...errorNodes].map(e => (e.innerText || e.getAttribute('aria-label') || 'error').trim().slice(0, 300));
const markdown = document.querySelectorAll('.dashboard-markdown').length;
return {slots: slots.length, loading: loading.length, rendered: rendered, errors: errors, markdown: markdown,
        height: Math.max(document.documentElement.scrollHeight,
                         ...[...slots].map(s => s.getBoundingClientRect().bottom + window.scrollY + 40)),
        title: document.title};
"""


@dataclass(frozen=True)
class Screenshot:
    dashboard: str
    path: Path
    charts: int
    errors: list[str]

    @property
    def ok(self) -> bool:
        return not self.errors


def _driver(profile: Path) -> webdriver.Chrome:
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not tool.exists():
            raise DashboardsError(f"{tool} is missing: the headless check needs Debian's chromium and "
                                  "chromium-driver (156); run `./cheetah setup`")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={WIDTH},2000"):
        options.add_argument(flag)
    try:
        return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    except WebDriverException as error:
        raise DashboardsError(f"cannot start headless Chromium through {CHROMEDRIVER}: {error.msg}") from error


def _login(driver: webdriver.Chrome, url: str, username: str, password: str) -> None:
    driver.get(f"{url}/login/")
    deadline = time.monotonic() + 60
    while not driver.find_elements(By.CSS_SELECTOR, "input#username, input[name=username]"):
        if time.monotonic() > deadline:
            raise DashboardsError(f"the Superset login page at {url}/login/ showed no username field")
        time.sleep(0.2)
    driver.find_element(By.CSS_SELECTOR, "input#username, input[name=username]").send_keys(username)
    driver.find_element(By.CSS_SELECTOR, "input#password, input[name=password]").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit], input[type=submit]").click()
    while "/login" in driver.current_url:
        if time.monotonic() > deadline:
            raise DashboardsError(f"login to {url} as {username!r} did not leave the login page")
        time.sleep(0.2)


def _wait_rendered(driver: webdriver.Chrome, name: str, expected_charts: int) -> dict[str, object]:
    deadline = time.monotonic() + RENDER_TIMEOUT_S
    stable_since: float | None = None
    while True:
        state: dict[str, object] = driver.execute_script(_STATE_JS)
        done = (int(state["slots"]) >= expected_charts and int(state["loading"]) == 0  # type: ignore[arg-type]
                and int(state["rendered"]) >= expected_charts)  # type: ignore[arg-type]
        # Echarts animate in; a state that holds for a second is a finished page.
        if done:
            stable_since = stable_since or time.monotonic()
            if time.monotonic() - stable_since >= 1.0:
                return state
        else:
            stable_since = None
        if time.monotonic() > deadline:
            # Reported as an error of this dashboard (with a screenshot of how far it got), not raised,
            # so the other dashboards are still checked.
            state["errors"] = [*state["errors"], (  # type: ignore[misc]
                f"did not finish rendering within {RENDER_TIMEOUT_S:g} s: {state['slots']} chart slots of "
                f"{expected_charts}, {state['rendered']} rendered, {state['loading']} still loading")]
            return state
        time.sleep(0.25)


def screenshot_dashboards(url: str, username: str, password: str, dashboards: list[tuple[str, str, int]],
                          out_dir: Path) -> list[Screenshot]:
    """dashboards: (title, slug, number of charts). Writes out_dir/dashboard-<slug-tail>.png each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="cheetah-chromium-"))
    driver = _driver(profile)
    shots: list[Screenshot] = []
    try:
        _login(driver, url, username, password)
        for title, slug, charts in dashboards:
            driver.set_window_size(WIDTH, 2000)
            driver.get(f"{url}/superset/dashboard/{slug}/?standalone=1")
            state = _wait_rendered(driver, title, charts)
            driver.set_window_size(WIDTH, int(state["height"]) + 40)  # type: ignore[arg-type]
            state = _wait_rendered(driver, title, charts)
            path = out_dir / f"dashboard-{slug.removeprefix('cheetah-')}.png"
            if not driver.save_screenshot(str(path)):
                raise DashboardsError(f"Chromium could not write the screenshot {path}")
            shots.append(Screenshot(title, path, charts, list(state["errors"])))  # type: ignore[arg-type]
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return shots
