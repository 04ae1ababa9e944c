//! The environment an agent starts in: the engine's, less what a window's
//! shell sets for itself. The window's web view (WebKitGTK, GTK, GDK) reads
//! variables that tune how it draws (`WEBKIT_DISABLE_COMPOSITING_MODE`, which
//! the shell sets when there is no GPU) or that hand it the desktop's launch
//! token; an agent that inherits them through an engine the window started
//! runs its own tools (a browser a test opens, say) under the window's
//! settings. The window drops them when it starts the engine; the engine
//! drops them again from every agent's environment, as a defence.

/// The prefixes of variables that belong to the window's toolkit, never to
/// an agent.
pub const WINDOW_ONLY_PREFIXES: &[&str] = &["WEBKIT_", "GDK_", "GTK_", "TAURI_"];

/// Single variables the desktop hands a window it launches (its launch
/// token and desktop file), which a program the agent starts would take as
/// its own.
pub const WINDOW_ONLY_NAMES: &[&str] =
    &["DESKTOP_STARTUP_ID", "XDG_ACTIVATION_TOKEN", "GIO_LAUNCHED_DESKTOP_FILE", "GIO_LAUNCHED_DESKTOP_FILE_PID"];

/// Whether the variable `name` is the window's own, kept from agents.
pub fn window_only(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else { return false };
    WINDOW_ONLY_PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || WINDOW_ONLY_NAMES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_s_own_variables_are_told_from_the_user_s() {
        let cases = [
            ("WEBKIT_DISABLE_COMPOSITING_MODE", true),
            ("WEBKIT_EXEC_PATH", true),
            ("GDK_BACKEND", true),
            ("GTK_THEME", true),
            ("TAURI_ENV_DEBUG", true),
            ("DESKTOP_STARTUP_ID", true),
            ("XDG_ACTIVATION_TOKEN", true),
            ("PATH", false),
            ("HOME", false),
            ("ANTHROPIC_API_KEY", false),
            ("MY_WEBKIT_BUILD", false),
            ("XDG_RUNTIME_DIR", false),
            ("DISPLAY", false),
        ];
        for (name, expected) in cases {
            assert_eq!(window_only(std::ffi::OsStr::new(name)), expected, "{name}");
        }
    }
}
