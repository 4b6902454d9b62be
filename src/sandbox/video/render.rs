//! Procedural (text-to-video) frames: the camera drifts across a still backdrop in the
//! image renderer's style while its colours cross-fade from the start palette to the end one
//! (hue rotation, or a palette cycle when graded), soft discs and rings float across the
//! frame, and comet-like brush dabs follow a slowly changing flow field.
//!
//! Frames are composed in I420 (see `yuv`); RGB exists only while painting the backdrop.

use super::Plan;
use super::VideoError;
use super::canvas::{self, Canvases, fbm, smoothstep};
use super::compose::{ONE, Sprite, blend_sprite, crossfade_window};
use super::palette::{Roles, VideoPalette};
use super::yuv::{I420, Yuv};
use crate::sandbox::ids::SplitMix;

/// Camera travel per second as a fraction of the frame width, and its cap over a clip.
const PAN_PER_SECOND: f32 = 0.045;
const PAN_MAX: f32 = 0.3;
const TRAIL_LEN: usize = 16;

/// Start and end colours of the five roles, in YUV.
struct RoleColours {
    start: [Yuv; 5],
    end: [Yuv; 5],
}

impl RoleColours {
    fn new(palette: &VideoPalette) -> Self {
        let convert = |roles: &Roles| roles.map(Yuv::from_rgbf);
        Self {
            start: convert(&palette.start),
            end: convert(&palette.end),
        }
    }

    fn at(&self, role: usize, weight: u32) -> Yuv {
        Yuv::lerp(self.start[role], self.end[role], weight)
    }
}

/// Top-left of the frame window in the canvas over time: a straight drift plus a gentle
/// sideways sway.
struct PanPath {
    origin: (f32, f32),
    travel: (f32, f32),
    sway: (f32, f32),
    max: (usize, usize),
}

impl PanPath {
    /// Returns the path and the margin the canvas needs beyond the frame.
    fn new(width: u32, height: u32, seconds: f32, rng: &mut SplitMix) -> (Self, (u32, u32)) {
        let angle = rng.range_f32(0.0, std::f32::consts::TAU);
        let distance = width as f32 * (PAN_PER_SECOND * seconds).min(PAN_MAX);
        let travel = (angle.cos() * distance, angle.sin() * distance);
        let amplitude = height as f32 * 0.015;
        let sway = (-angle.sin() * amplitude, angle.cos() * amplitude);
        // Even margins keep the canvas even; +2 covers rounding of the sway.
        let margin =
            |t: f32, s: f32| ((t.abs() + 2.0 * s.abs() + 2.0).ceil() as u32).next_multiple_of(2);
        let (mx, my) = (margin(travel.0, sway.0), margin(travel.1, sway.1));
        let origin = (
            sway.0.abs() + 1.0 - travel.0.min(0.0),
            sway.1.abs() + 1.0 - travel.1.min(0.0),
        );
        let path = Self {
            origin,
            travel,
            sway,
            max: (mx as usize, my as usize),
        };
        (path, (mx, my))
    }

    fn at(&self, progress: f32) -> (usize, usize) {
        let s = (progress * std::f32::consts::TAU).sin();
        let x = self.origin.0 + self.travel.0 * progress + self.sway.0 * s;
        let y = self.origin.1 + self.travel.1 * progress + self.sway.1 * s;
        (
            (x.round().max(0.0) as usize).min(self.max.0),
            (y.round().max(0.0) as usize).min(self.max.1),
        )
    }
}

/// A soft disc or ring drifting across the frame, wrapping around its edges.
struct Orb {
    sprite: Sprite,
    start: (f32, f32),
    velocity: (f32, f32),
    role: usize,
    opacity: f32,
    pulse_hz: f32,
    phase: f32,
}

impl Orb {
    fn new(width: u32, height: u32, rng: &mut SplitMix) -> Self {
        let short = width.min(height) as f32;
        let radius = (rng.range_f32(0.05, 0.16) * short).max(3.0);
        let ring = rng.next_f64() < 0.4;
        let sprite = if ring {
            Sprite::radial(radius, |d| {
                smoothstep(0.55, 0.75, d) * (1.0 - smoothstep(0.85, 1.0, d))
            })
        } else {
            Sprite::radial(radius, |d| 1.0 - smoothstep(0.65, 1.0, d))
        };
        let angle = rng.range_f32(0.0, std::f32::consts::TAU);
        let speed = rng.range_f32(0.05, 0.15) * width as f32;
        Self {
            sprite,
            start: (
                rng.range_f32(0.0, width as f32),
                rng.range_f32(0.0, height as f32),
            ),
            velocity: (angle.cos() * speed, angle.sin() * speed),
            role: 1 + (rng.next_u64() % 4) as usize,
            opacity: rng.range_f32(0.25, 0.5),
            pulse_hz: rng.range_f32(0.2, 0.5),
            phase: rng.range_f32(0.0, std::f32::consts::TAU),
        }
    }

    fn draw(&self, frame: &mut I420, seconds: f32, colours: &RoleColours, weight: u32) {
        let (w, h) = (self.sprite.width as f32, self.sprite.height as f32);
        // Wrap over frame + sprite so an orb leaving one edge re-enters at the other.
        let span_x = frame.width as f32 + w;
        let span_y = frame.height as f32 + h;
        let x = (self.start.0 + self.velocity.0 * seconds).rem_euclid(span_x) - w;
        let y = (self.start.1 + self.velocity.1 * seconds).rem_euclid(span_y) - h;
        let pulse =
            1.0 + 0.25 * (seconds * self.pulse_hz * std::f32::consts::TAU + self.phase).sin();
        let opacity = (self.opacity * pulse * ONE as f32) as u32;
        let colour = colours.at(self.role, weight);
        blend_sprite(
            frame,
            &self.sprite,
            x.round() as i64,
            y.round() as i64,
            colour,
            opacity,
        );
    }
}

#[derive(Clone)]
struct Comet {
    x: f32,
    y: f32,
    radius: f32,
    role: usize,
    trail: Vec<(f32, f32)>,
}

/// Brush dabs that travel along a flow field which itself drifts over time.
#[derive(Clone)]
struct Comets {
    comets: Vec<Comet>,
    rng: SplitMix,
    salt: u64,
    freq: f32,
    drift: f32,
    /// Pixels per frame.
    step: f32,
    width: f32,
    height: f32,
    /// Frames simulated so far.
    frame: u32,
}

impl Comets {
    fn new(width: u32, height: u32, fps: u32, rng: &mut SplitMix) -> Self {
        let (w, h) = (width as f32, height as f32);
        let short = w.min(h);
        let size = (short / 720.0).max(0.4);
        let count = 10 + (rng.next_u64() % 7) as usize;
        let mut own = SplitMix::new(rng.next_u64());
        let comets = (0..count)
            .map(|_| Comet {
                x: own.range_f32(0.0, w),
                y: own.range_f32(0.0, h),
                radius: (own.range_f32(4.0, 8.0) * size).max(1.0),
                role: 2 + (own.next_u64() % 3) as usize,
                trail: Vec::with_capacity(TRAIL_LEN),
            })
            .collect();
        Self {
            comets,
            salt: rng.next_u64(),
            freq: rng.range_f32(1.5, 3.0),
            drift: rng.range_f32(0.05, 0.2),
            step: rng.range_f32(0.2, 0.35) * short / fps.max(1) as f32,
            width: w,
            height: h,
            frame: 0,
            rng: own,
        }
    }

    /// Moves every comet one frame on (two sub-steps, each leaving a dab in the trail).
    fn advance(&mut self, fps: u32) {
        let t = self.frame as f32 / fps.max(1) as f32;
        let (w, h) = (self.width, self.height);
        for comet in &mut self.comets {
            for _ in 0..2 {
                let angle = fbm(
                    comet.x / w * self.freq + t * self.drift,
                    comet.y / h * self.freq,
                    self.salt,
                ) * std::f32::consts::TAU
                    * 2.0;
                comet.x += angle.cos() * self.step * 0.5;
                comet.y += angle.sin() * self.step * 0.5;
                let margin = comet.radius * 2.0;
                if comet.x < -margin
                    || comet.y < -margin
                    || comet.x > w + margin
                    || comet.y > h + margin
                {
                    comet.x = self.rng.range_f32(0.0, w);
                    comet.y = self.rng.range_f32(0.0, h);
                    comet.trail.clear();
                }
                if comet.trail.len() == TRAIL_LEN {
                    comet.trail.remove(0);
                }
                comet.trail.push((comet.x, comet.y));
            }
        }
        self.frame += 1;
    }

    fn draw(&self, frame: &mut I420, dots: &[Sprite], colours: &RoleColours, weight: u32) {
        for comet in &self.comets {
            let colour = colours.at(comet.role, weight);
            let n = comet.trail.len() as f32;
            for (i, &(x, y)) in comet.trail.iter().enumerate() {
                let age = (i as f32 + 1.0) / n;
                let radius = comet.radius * (0.4 + 0.6 * age);
                let Some(dot) = dots.get((radius * 2.0).round() as usize) else {
                    continue;
                };
                let opacity = (0.9 * age * age * ONE as f32) as u32;
                let left = (x - dot.width as f32 / 2.0).round() as i64;
                let top = (y - dot.height as f32 / 2.0).round() as i64;
                blend_sprite(frame, dot, left, top, colour, opacity);
            }
        }
    }
}

pub(super) struct ProceduralScene {
    canvases: Canvases,
    colours: RoleColours,
    pan: PanPath,
    orbs: Vec<Orb>,
    comets: Comets,
    initial_comets: Comets,
    /// Soft dots for the comets, indexed by radius in half pixels.
    dots: Vec<Sprite>,
    fps: u32,
    frames: u32,
}

impl ProceduralScene {
    pub(super) fn new(
        plan: &Plan<'_>,
        palette: &VideoPalette,
        rng: &mut SplitMix,
    ) -> Result<Self, VideoError> {
        let (w, h) = (plan.width, plan.height);
        let (pan, (mx, my)) = PanPath::new(w, h, plan.seconds(), rng);
        let canvases = canvas::paint(w + mx, h + my, w.max(h), palette, rng)?;
        let orbs = (0..3 + rng.next_u64() % 4)
            .map(|_| Orb::new(w, h, rng))
            .collect();
        let comets = Comets::new(w, h, plan.fps, rng);
        let max_radius = comets.comets.iter().map(|c| c.radius).fold(1.0, f32::max);
        let dots = (0..=(max_radius * 2.0).ceil() as usize)
            .map(|d| Sprite::radial((d as f32 / 2.0).max(0.5), |x| 1.0 - smoothstep(0.5, 1.0, x)))
            .collect();
        Ok(Self {
            canvases,
            colours: RoleColours::new(palette),
            pan,
            orbs,
            initial_comets: comets.clone(),
            comets,
            dots,
            fps: plan.fps,
            frames: plan.frames,
        })
    }

    /// Draws frame `index` into `out` (frame-sized). Cheapest when called in order, as the
    /// comets are simulated frame by frame.
    pub(super) fn draw(&mut self, index: u32, out: &mut I420) {
        if index < self.comets.frame {
            self.comets = self.initial_comets.clone();
        }
        while self.comets.frame <= index {
            self.comets.advance(self.fps);
        }
        let progress = if self.frames > 1 {
            index as f32 / (self.frames - 1) as f32
        } else {
            0.0
        };
        let seconds = index as f32 / self.fps.max(1) as f32;
        // Smooth start-to-end colour change over the clip.
        let weight =
            ((0.5 - 0.5 * (progress * std::f32::consts::PI).cos()) * ONE as f32).round() as u32;
        let (left, top) = self.pan.at(progress);
        crossfade_window(
            &self.canvases.start,
            &self.canvases.end,
            left,
            top,
            weight,
            out,
        );
        for orb in &self.orbs {
            orb.draw(out, seconds, &self.colours, weight);
        }
        self.comets.draw(out, &self.dots, &self.colours, weight);
    }
}
