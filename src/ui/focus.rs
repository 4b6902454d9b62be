//! Where the keyboard focus goes when something appears: a dialog's main button, the
//! field typing is meant for. egui keeps no "opened" event, so a thing that was not drawn
//! on the previous frame counts as newly shown.

/// True on the first frame `id` is drawn after at least one frame without it (call it
/// once per frame while the thing is shown).
pub fn first_frame_shown(ctx: &egui::Context, id: egui::Id) -> bool {
    let frame = ctx.cumulative_frame_nr();
    let key = id.with("focus::last_frame_shown");
    let last: Option<u64> = ctx.data_mut(|d| {
        let last = d.get_temp(key);
        d.insert_temp(key, frame);
        last
    });
    // Another pass of the same frame is not a new showing.
    last.is_none_or(|last| last + 1 < frame)
}
