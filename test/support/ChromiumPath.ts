/**
 * The Chromium the browser suites drive: `CHROMIUM_PATH`, else Debian's headless shell
 * (`chromium-headless-shell`: Chromium's own renderer without the desktop browser around it, the
 * build playwright itself runs headless). The same pages and pixels as the desktop `chromium` for
 * much less CPU, which matters when a run drives hundreds of pages on two cores.
 */
export const defaultChromiumPath = "/usr/bin/chromium-headless-shell"

/** Debian's package that installs {@link defaultChromiumPath}. */
export const chromiumPackage = "chromium-headless-shell"

/** The executable the suites launch. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH ?? defaultChromiumPath
