//! The main window's size, position and maximised state across runs, and the view the
//! studio opens on. The pure functions decide what to restore; [`WindowTracker`] watches
//! the window and says when to store its geometry (about once a second at most).

use crate::settings::{UiMemory, WindowGeometry};
use crate::ui::model::View;

/// The window's inner size on first start, in points.
pub const DEFAULT_INNER_SIZE_PT: [f32; 2] = [1440.0, 900.0];
/// The smallest window every view is laid out for.
pub const MIN_INNER_SIZE_PT: [f32; 2] = [960.0, 600.0];
/// Room around the inner size for what the desktop adds: borders, the title bar and a
/// desktop panel (top bar or taskbar), so the status bar stays on screen.
pub const DECORATION_ALLOWANCE_PT: [f32; 2] = [16.0, 80.0];
/// Least time between two writes of the geometry while the window moves.
pub const STORE_INTERVAL_SECS: f64 = 1.0;

/// Where the window opens: as remembered, else at the default size (position left to the
/// desktop). Sizes below the minimum are raised to it.
pub fn initial_geometry(saved: Option<WindowGeometry>) -> WindowGeometry {
    let mut geometry = saved.unwrap_or(WindowGeometry {
        inner_width_pt: DEFAULT_INNER_SIZE_PT[0],
        inner_height_pt: DEFAULT_INNER_SIZE_PT[1],
        position_pt: None,
        maximized: false,
    });
    let usable = |v: f32, min: f32| if v.is_finite() { v.max(min) } else { min };
    geometry.inner_width_pt = usable(geometry.inner_width_pt, MIN_INNER_SIZE_PT[0]);
    geometry.inner_height_pt = usable(geometry.inner_height_pt, MIN_INNER_SIZE_PT[1]);
    geometry.position_pt = geometry
        .position_pt
        .filter(|[x, y]| x.is_finite() && y.is_finite());
    geometry
}

/// `geometry` made to fit a monitor of `monitor_pt`: the window with its decorations is
/// no larger than the monitor, and its position keeps all of it on the monitor.
pub fn fit_to_monitor(geometry: WindowGeometry, monitor_pt: [f32; 2]) -> WindowGeometry {
    let max_inner = [
        (monitor_pt[0] - DECORATION_ALLOWANCE_PT[0]).max(1.0),
        (monitor_pt[1] - DECORATION_ALLOWANCE_PT[1]).max(1.0),
    ];
    let inner_width_pt = geometry.inner_width_pt.min(max_inner[0]);
    let inner_height_pt = geometry.inner_height_pt.min(max_inner[1]);
    let position_pt = geometry.position_pt.map(|[x, y]| {
        let max_x = (monitor_pt[0] - inner_width_pt - DECORATION_ALLOWANCE_PT[0]).max(0.0);
        let max_y = (monitor_pt[1] - inner_height_pt - DECORATION_ALLOWANCE_PT[1]).max(0.0);
        [x.clamp(0.0, max_x), y.clamp(0.0, max_y)]
    });
    WindowGeometry {
        inner_width_pt,
        inner_height_pt,
        position_pt,
        maximized: geometry.maximized,
    }
}

/// The view to open: the command line's, else the one shown last, else Create.
pub fn startup_view(from_command_line: Option<View>, memory: &UiMemory) -> View {
    from_command_line
        .or_else(|| memory.last_view.as_deref()?.parse().ok())
        .unwrap_or_default()
}

/// The name a view is remembered by (what [`startup_view`] parses).
pub fn view_key(view: View) -> String {
    view.label().to_ascii_lowercase()
}

/// Watches the window: fits it to the monitor once the monitor is known, and tells when
/// its geometry should be stored.
#[derive(Debug, Default)]
pub struct WindowTracker {
    /// Off for screenshot runs: they neither fit nor store the window.
    enabled: bool,
    fitted: bool,
    /// The geometry last handed out for storing (or read at start).
    stored: Option<WindowGeometry>,
    /// The latest geometry seen (restored size while maximised).
    seen: Option<WindowGeometry>,
    stored_at_secs: f64,
}

impl WindowTracker {
    pub fn new(stored: Option<WindowGeometry>, enabled: bool) -> Self {
        Self {
            enabled,
            stored,
            seen: stored,
            ..Self::default()
        }
    }

    /// Call once a frame. Returns a geometry to store when it changed and the last store
    /// is at least [`STORE_INTERVAL_SECS`] old.
    pub fn update(&mut self, ctx: &egui::Context) -> Option<WindowGeometry> {
        if !self.enabled {
            return None;
        }
        let (info, now_secs) = ctx.input(|i| (i.viewport().clone(), i.time));
        let inner = info.inner_rect?;
        if info.minimized == Some(true) || info.fullscreen == Some(true) {
            return None;
        }
        let maximized = info.maximized == Some(true);
        if !self.fitted
            && let Some(monitor) = info.monitor_size
        {
            self.fitted = true;
            self.fit(ctx, &info, [monitor.x, monitor.y], maximized);
        }
        let geometry = if maximized {
            // Keep the size to restore to; only the flag changes.
            let mut restored = self.seen.unwrap_or_else(|| initial_geometry(None));
            restored.maximized = true;
            restored
        } else {
            WindowGeometry {
                inner_width_pt: inner.width(),
                inner_height_pt: inner.height(),
                position_pt: info.outer_rect.map(|r| [r.min.x, r.min.y]),
                maximized: false,
            }
        };
        self.seen = Some(geometry);
        if self.stored == Some(geometry) || now_secs - self.stored_at_secs < STORE_INTERVAL_SECS {
            if self.stored != Some(geometry) {
                ctx.request_repaint_after(std::time::Duration::from_secs_f64(STORE_INTERVAL_SECS));
            }
            return None;
        }
        self.stored = Some(geometry);
        self.stored_at_secs = now_secs;
        Some(geometry)
    }

    /// The geometry to store on exit, when it changed since the last store.
    pub fn unstored(&self) -> Option<WindowGeometry> {
        self.seen
            .filter(|seen| self.enabled && self.stored != Some(*seen))
    }

    /// Shrink and move the window onto the monitor when the platform opened it larger.
    fn fit(
        &self,
        ctx: &egui::Context,
        info: &egui::ViewportInfo,
        monitor_pt: [f32; 2],
        maximized: bool,
    ) {
        let Some(inner) = info.inner_rect else {
            return;
        };
        if maximized {
            return;
        }
        let current = WindowGeometry {
            inner_width_pt: inner.width(),
            inner_height_pt: inner.height(),
            position_pt: info.outer_rect.map(|r| [r.min.x, r.min.y]),
            maximized,
        };
        let fitted = fit_to_monitor(current, monitor_pt);
        if (fitted.inner_width_pt, fitted.inner_height_pt)
            != (current.inner_width_pt, current.inner_height_pt)
        {
            tracing::info!(
                "window {}×{} pt is larger than the {}×{} pt screen; shrinking it",
                current.inner_width_pt,
                current.inner_height_pt,
                monitor_pt[0],
                monitor_pt[1]
            );
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(
                fitted.inner_width_pt,
                fitted.inner_height_pt,
            )));
        }
        if let Some([x, y]) = fitted.position_pt
            && fitted.position_pt != current.position_pt
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(egui::pos2(x, y)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(w: f32, h: f32, position: Option<[f32; 2]>) -> WindowGeometry {
        WindowGeometry {
            inner_width_pt: w,
            inner_height_pt: h,
            position_pt: position,
            maximized: false,
        }
    }

    #[test]
    fn a_window_that_fits_is_left_alone() {
        let g = geometry(1200.0, 760.0, Some([40.0, 30.0]));
        assert_eq!(fit_to_monitor(g, [1920.0, 1080.0]), g);
    }

    #[test]
    fn the_default_window_on_a_1440_by_900_screen_keeps_its_status_bar_visible() {
        let fitted = fit_to_monitor(initial_geometry(None), [1440.0, 900.0]);
        assert!(fitted.inner_height_pt + DECORATION_ALLOWANCE_PT[1] <= 900.0);
        assert!(fitted.inner_width_pt + DECORATION_ALLOWANCE_PT[0] <= 1440.0);
    }

    #[test]
    fn a_window_partly_off_screen_is_moved_back() {
        let fitted = fit_to_monitor(
            geometry(1000.0, 700.0, Some([900.0, -50.0])),
            [1440.0, 900.0],
        );
        let [x, y] = fitted.position_pt.expect("position");
        assert!(x + 1000.0 + DECORATION_ALLOWANCE_PT[0] <= 1440.0 && x >= 0.0);
        assert!(y >= 0.0);
    }

    #[test]
    fn nonsense_sizes_fall_back_to_the_minimum() {
        let g = initial_geometry(Some(geometry(f32::NAN, 10.0, Some([f32::INFINITY, 0.0]))));
        assert_eq!((g.inner_width_pt, g.inner_height_pt), (960.0, 600.0));
        assert_eq!(g.position_pt, None);
    }
}
