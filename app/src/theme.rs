//! Light or dark: the reader's choice (kept in localStorage, where index.html's inline script
//! reads it before anything paints), else the system's. No Leptos here: the chapter page's own
//! entry point (`bin/chapter.rs`) shares this file.

const THEME_KEY: &str = "bookside-theme";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn other(self) -> Theme {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }

    /// The toggle's accessible name: what pressing it does.
    pub fn toggle_label(self) -> &'static str {
        match self {
            Theme::Dark => "Switch to the light theme",
            Theme::Light => "Switch to the dark theme",
        }
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The theme in force: the reader's choice, else the system's.
pub fn current() -> Theme {
    let chosen = local_storage().and_then(|s| s.get_item(THEME_KEY).ok().flatten());
    match chosen.as_deref() {
        Some("dark") => Theme::Dark,
        Some("light") => Theme::Light,
        _ => {
            let dark = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
                .is_some_and(|m| m.matches());
            if dark { Theme::Dark } else { Theme::Light }
        }
    }
}

/// Shows `theme` and keeps the choice for the next page load.
pub fn apply(theme: Theme) {
    let name = match theme {
        Theme::Dark => "dark",
        Theme::Light => "light",
    };
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(THEME_KEY, name);
    }
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", name);
    }
}
