// The browsers web_page_test.mjs drives, behind one small interface so each
// of its checks runs unchanged in both:
//   - chromium: Debian's Chromium (/usr/bin/chromium, or $UISCOPE_CHROMIUM),
//     headless, through playwright-core (CDP);
//   - firefox: Debian's Firefox ESR (/usr/bin/firefox-esr, or
//     $UISCOPE_FIREFOX), headless, through puppeteer-core over WebDriver BiDi.
//
// launchBrowser(kind) -> { name, version, newPage({ width, height }), close() }
// A page:
//   goto(url), url(), press(key), click(sel), fill(sel, text), hover(sel),
//   select(sel, value), count(sel), text(sel), evalAll(sel, fn),
//   evaluate(fn, arg), waitFor(sel, timeout), waitGone(sel, timeout),
//   waitForFunction(fn, arg, { timeout, polling }), cookies(),
//   screenshot(file, { fullPage }), onPageError(fn), close().
// click, fill and hover act on the first element `sel` matches, waiting
// until it is there; waitFor waits until `sel` is visible, waitGone until no
// element matches it. onPageError(fn) gets script errors and CSP
// violations. cookies() gives { name, httpOnly, sameSite } with
// sameSite 'Strict', 'Lax' or 'None'.

export const BROWSERS = {
  chromium: process.env.UISCOPE_CHROMIUM || '/usr/bin/chromium',
  firefox: process.env.UISCOPE_FIREFOX || '/usr/bin/firefox-esr',
};

// The Debian package that holds each browser, for the message when it is absent.
export const PACKAGES = { chromium: 'chromium', firefox: 'firefox-esr' };

export async function launchBrowser(kind) {
  if (kind === 'chromium') return launchChromium();
  if (kind === 'firefox') return launchFirefox();
  throw new Error(`unknown browser "${kind}" (chromium or firefox)`);
}

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: BROWSERS.chromium, headless: true, args: ['--no-sandbox'] });
  return {
    name: 'chromium',
    version: browser.version(),
    async newPage({ width, height } = {}) {
      const page = await browser.newPage(width ? { viewport: { width, height } } : {});
      return {
        goto: (url) => page.goto(url),
        url: () => page.url(),
        press: (key) => page.keyboard.press(key),
        click: (sel) => page.click(sel),
        fill: (sel, text) => page.fill(sel, text),
        hover: (sel) => page.locator(sel).first().hover(),
        select: (sel, value) => page.selectOption(sel, value),
        count: (sel) => page.locator(sel).count(),
        text: (sel) => page.locator(sel).textContent(),
        evalAll: (sel, fn) => page.$$eval(sel, fn),
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        waitFor: (sel, timeout) => page.waitForSelector(sel, { timeout }),
        waitGone: (sel, timeout) => page.waitForSelector(sel, { state: 'detached', timeout }),
        waitForFunction: (fn, arg, options) => page.waitForFunction(fn, arg, options),
        cookies: () => page.context().cookies(),
        screenshot: (file, { fullPage = false } = {}) => page.screenshot({ path: file, fullPage }),
        // Chromium reports a CSP violation on the console, not as a page
        // error (Firefox does, over BiDi): both count.
        onPageError: (fn) => {
          page.on('pageerror', (e) => fn(String(e)));
          page.on('console', (m) => {
            if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) fn(m.text());
          });
        },
        close: () => page.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: BROWSERS.firefox,
    headless: true,
  });
  return {
    name: 'firefox',
    version: await browser.version(),
    async newPage({ width, height } = {}) {
      const page = await browser.newPage();
      if (width) await page.setViewport({ width, height });
      return {
        goto: (url) => page.goto(url),
        url: () => page.url(),
        press: (key) => page.keyboard.press(key),
        click: (sel) => page.locator(sel).click(),
        fill: (sel, text) => page.locator(sel).fill(text),
        hover: (sel) => page.locator(sel).hover(),
        select: (sel, value) => page.select(sel, value),
        count: async (sel) => (await page.$$(sel)).length,
        text: (sel) => page.$eval(sel, (e) => e.textContent),
        evalAll: (sel, fn) => page.$$eval(sel, fn),
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        waitFor: (sel, timeout) => page.waitForSelector(sel, { visible: true, timeout }),
        waitGone: (sel, timeout) => page.waitForFunction((s) => !document.querySelector(s), { timeout }, sel),
        // Puppeteer's polling is 'raf', 'mutation' or milliseconds; Playwright's
        // default is requestAnimationFrame.
        waitForFunction: (fn, arg, { timeout = 30_000, polling = 'raf' } = {}) =>
          page.waitForFunction(fn, { timeout, polling }, arg),
        cookies: () => browser.cookies(),
        screenshot: (file, { fullPage = false } = {}) => page.screenshot({ path: file, fullPage }),
        onPageError: (fn) => page.on('pageerror', (e) => fn(String(e))),
        close: () => page.close(),
      };
    },
    close: () => browser.close(),
  };
}
