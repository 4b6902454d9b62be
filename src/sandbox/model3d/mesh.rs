//! The procedural object: a lathed vessel (a profile of a few sine harmonics turned about
//! the Y axis, with lobes and a twist) closed by two caps, smooth normals and vertex
//! colours in bands of a palette. Everything follows from the seed, so the same prompt
//! makes the same object.

use crate::sandbox::ids::SplitMix;

/// Fewest triangles a model has (a smaller `target_polycount` is raised to this).
pub(crate) const MIN_TRIANGLES: u32 = 1_000;
/// Most triangles a request may ask for (`target_polycount` above it is refused).
pub(crate) const MAX_TRIANGLES: u32 = 300_000;
/// Triangles when the request names no `target_polycount`.
pub(crate) const DEFAULT_TRIANGLES: u32 = 20_000;
/// Fewest segments around the axis (a coarse object still reads as round).
const MIN_SEGMENTS: u32 = 8;

/// An indexed triangle mesh with per-vertex normals (unit length) and linear RGB colours.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// Linear RGB in 0..=1 (glTF's COLOR_0 is linear).
    pub colors: Vec<[f32; 3]>,
    /// Counter-clockwise triangles seen from outside.
    pub indices: Vec<u32>,
}

impl Mesh {
    pub(crate) fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Axis-aligned bounds: (min, max).
    pub(crate) fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for axis in 0..3 {
                min[axis] = min[axis].min(p[axis]);
                max[axis] = max[axis].max(p[axis]);
            }
        }
        if self.positions.is_empty() {
            ([0.0; 3], [0.0; 3])
        } else {
            (min, max)
        }
    }
}

/// sRGB byte to linear 0..=1.
pub(crate) fn srgb_to_linear(channel: u8) -> f32 {
    let c = f32::from(channel) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear 0..=1 to an sRGB value in 0..=1.
pub(crate) fn linear_to_srgb(value: f32) -> f32 {
    let v = value.clamp(0.0, 1.0);
    if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

fn hsv_to_rgb(hue: f32, saturation: f32, value: f32) -> [u8; 3] {
    let h = hue.rem_euclid(1.0) * 6.0;
    let c = value * saturation;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = value - c;
    let byte = |v: f32| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [byte(r), byte(g), byte(b)]
}

/// Three to five harmonious colours from the seed (analogous hues with one accent).
pub(crate) fn seed_palette(seed: u64) -> Vec<[u8; 3]> {
    let mut rng = SplitMix::new(seed ^ 0x5eed_c010_0b5e_ed01);
    let base_hue = rng.next_f64() as f32;
    let count = 3 + (rng.next_u64() % 3) as usize;
    let accent_at = (rng.next_u64() as usize) % count;
    (0..count)
        .map(|index| {
            let hue = if index == accent_at {
                base_hue + 0.5
            } else {
                base_hue + 0.07 * index as f32
            };
            hsv_to_rgb(hue, rng.range_f32(0.45, 0.8), rng.range_f32(0.55, 0.95))
        })
        .collect()
}

/// The lathe's shape, drawn from the seed.
struct Shape {
    height: f32,
    base_radius: f32,
    /// (amplitude, angular frequency over t in 0..=1, phase)
    harmonics: [(f32, f32, f32); 3],
    lobes: f32,
    lobe_amplitude: f32,
    twist_radians: f32,
}

impl Shape {
    fn from_seed(seed: u64) -> Self {
        let mut rng = SplitMix::new(seed);
        let mut harmonic = || {
            (
                rng.range_f32(0.04, 0.22),
                rng.range_f32(1.0, 4.0) * std::f32::consts::PI,
                rng.range_f32(0.0, std::f32::consts::TAU),
            )
        };
        let harmonics = [harmonic(), harmonic(), harmonic()];
        const LOBES: [f32; 6] = [0.0, 3.0, 4.0, 5.0, 6.0, 8.0];
        Self {
            height: rng.range_f32(1.2, 2.0),
            base_radius: rng.range_f32(0.35, 0.6),
            harmonics,
            lobes: LOBES[(rng.next_u64() % LOBES.len() as u64) as usize],
            lobe_amplitude: rng.range_f32(0.0, 0.12),
            twist_radians: rng.range_f32(-1.2, 1.2),
        }
    }

    /// Radius of the profile at height fraction `t` (0 bottom, 1 top), before lobes.
    fn profile(&self, t: f32) -> f32 {
        let swell = 0.55 + 0.45 * (std::f32::consts::PI * t).sin().max(0.0).sqrt();
        let wave: f32 = self
            .harmonics
            .iter()
            .map(|(amplitude, frequency, phase)| amplitude * (frequency * t + phase).sin())
            .sum();
        (self.base_radius * swell * (1.0 + wave)).max(0.05)
    }
}

/// Segments around the axis and rings along it for about `triangles` triangles
/// (the lathe has `2 * segments * rings` of them, caps included).
fn grid_for(triangles: u32) -> (u32, u32) {
    let half = f64::from(triangles.max(MIN_TRIANGLES)) / 2.0;
    let segments = (half.sqrt().round() as u32).max(MIN_SEGMENTS);
    let mut rings = ((half / f64::from(segments)).round() as u32).max(2);
    // Never above the ceiling (rounding up could pass it by a few hundred).
    if 2 * segments * rings > MAX_TRIANGLES {
        rings -= 1;
    }
    (segments, rings)
}

/// The object for `seed` with about `triangles` triangles (clamped to
/// [`MIN_TRIANGLES`]..=[`MAX_TRIANGLES`]), coloured from `palette` (the seed's own
/// palette when empty).
pub(crate) fn build(seed: u64, triangles: u32, palette: &[[u8; 3]]) -> Mesh {
    let triangles = triangles.clamp(MIN_TRIANGLES, MAX_TRIANGLES);
    let shape = Shape::from_seed(seed);
    let own_palette;
    let palette = if palette.is_empty() {
        own_palette = seed_palette(seed);
        own_palette.as_slice()
    } else {
        palette
    };
    let linear: Vec<[f32; 3]> = palette
        .iter()
        .map(|c| {
            [
                srgb_to_linear(c[0]),
                srgb_to_linear(c[1]),
                srgb_to_linear(c[2]),
            ]
        })
        .collect();
    let (segments, rings) = grid_for(triangles);
    let ring_vertices = segments as usize;
    let side_vertices = ring_vertices * rings as usize;
    let mut mesh = Mesh {
        positions: Vec::with_capacity(side_vertices + 2),
        colors: Vec::with_capacity(side_vertices + 2),
        ..Mesh::default()
    };
    let band_color = |t: f32, theta: f32| -> [f32; 3] {
        let span = (linear.len().max(1) - 1) as f32;
        let u = (t * span + 0.18 * (shape.lobes.max(2.0) * theta + 6.0 * t).sin()).clamp(0.0, span);
        let low = u.floor() as usize;
        let high = (low + 1).min(linear.len() - 1);
        let f = u - low as f32;
        let f = f * f * (3.0 - 2.0 * f);
        let (a, b) = (linear[low], linear[high]);
        [
            a[0] + (b[0] - a[0]) * f,
            a[1] + (b[1] - a[1]) * f,
            a[2] + (b[2] - a[2]) * f,
        ]
    };
    for ring in 0..rings {
        let t = ring as f32 / (rings - 1) as f32;
        let radius = shape.profile(t);
        let y = shape.height * (t - 0.5);
        for segment in 0..segments {
            let theta =
                std::f32::consts::TAU * segment as f32 / segments as f32 + shape.twist_radians * t;
            let r = radius * (1.0 + shape.lobe_amplitude * (shape.lobes * theta).cos());
            mesh.positions.push([r * theta.cos(), y, r * theta.sin()]);
            mesh.colors.push(band_color(t, theta));
        }
    }
    let bottom = mesh.positions.len() as u32;
    mesh.positions.push([0.0, -shape.height / 2.0, 0.0]);
    mesh.colors.push(band_color(0.0, 0.0));
    let top = bottom + 1;
    mesh.positions.push([0.0, shape.height / 2.0, 0.0]);
    mesh.colors.push(band_color(1.0, 0.0));

    let at = |ring: u32, segment: u32| ring * segments + segment % segments;
    mesh.indices
        .reserve(2 * segments as usize * rings as usize * 3);
    for ring in 0..rings - 1 {
        for segment in 0..segments {
            let (a, b) = (at(ring, segment), at(ring + 1, segment));
            let (c, d) = (at(ring, segment + 1), at(ring + 1, segment + 1));
            mesh.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    for segment in 0..segments {
        mesh.indices
            .extend_from_slice(&[bottom, at(0, segment), at(0, segment + 1)]);
        mesh.indices
            .extend_from_slice(&[top, at(rings - 1, segment + 1), at(rings - 1, segment)]);
    }
    mesh.normals = smooth_normals(&mesh.positions, &mesh.indices);
    mesh
}

/// Half the side of a world's square of land and sea.
const WORLD_HALF_SIDE: f32 = 1.5;
/// Land, low to high, when a world has no reference colours: sea, sand, grass, rock, snow.
const TERRAIN: [[u8; 3]; 5] = [
    [28, 74, 128],
    [214, 196, 140],
    [78, 140, 64],
    [122, 108, 92],
    [238, 240, 244],
];

/// A world (`3d_world` models): an island heightfield from the seed, a square grid with
/// about `triangles` triangles, coloured by height from `palette` (darkest lowest) or
/// natural terrain colours.
pub(crate) fn build_world(seed: u64, triangles: u32, palette: &[[u8; 3]]) -> Mesh {
    let triangles = triangles.clamp(MIN_TRIANGLES, MAX_TRIANGLES);
    let cells = ((f64::from(triangles) / 2.0).sqrt().floor() as u32).max(2);
    let side = cells + 1;
    let mut rng = SplitMix::new(seed ^ 0x0a11_ce1a_4d00_0002);
    let waves: Vec<([f32; 2], f32, f32)> = (0..6)
        .map(|octave| {
            let frequency = 1.6 * 1.9f32.powi(octave);
            let angle = rng.range_f32(0.0, std::f32::consts::TAU);
            (
                [angle.cos() * frequency, angle.sin() * frequency],
                rng.range_f32(0.0, std::f32::consts::TAU),
                0.55 / 1.8f32.powi(octave),
            )
        })
        .collect();
    let peak = rng.range_f32(0.5, 0.9);
    let mut colours: Vec<[u8; 3]> = if palette.is_empty() {
        TERRAIN.to_vec()
    } else {
        palette.to_vec()
    };
    if !palette.is_empty() {
        colours.sort_by_key(|c| u32::from(c[0]) * 3 + u32::from(c[1]) * 6 + u32::from(c[2]));
    }
    let linear: Vec<[f32; 3]> = colours
        .iter()
        .map(|c| {
            [
                srgb_to_linear(c[0]),
                srgb_to_linear(c[1]),
                srgb_to_linear(c[2]),
            ]
        })
        .collect();
    let mut mesh = Mesh::default();
    for row in 0..side {
        for column in 0..side {
            let x = WORLD_HALF_SIDE * (2.0 * column as f32 / cells as f32 - 1.0);
            let z = WORLD_HALF_SIDE * (2.0 * row as f32 / cells as f32 - 1.0);
            let distance = (x * x + z * z).sqrt() / WORLD_HALF_SIDE;
            let island = (1.0 - distance).clamp(0.0, 1.0);
            let island = island * island * (3.0 - 2.0 * island);
            let relief: f32 = waves
                .iter()
                .map(|(k, phase, amplitude)| amplitude * (k[0] * x + k[1] * z + phase).sin())
                .sum();
            let land = island * peak * (0.75 + relief) - 0.08;
            let height = land.max(0.0);
            mesh.positions.push([x, height, z]);
            let u = if land <= 0.0 {
                0.0
            } else {
                (1.0 + (land / peak.max(0.01)) * (linear.len() - 1) as f32)
                    .min((linear.len() - 1) as f32)
            };
            let low = u.floor() as usize;
            let high = (low + 1).min(linear.len() - 1);
            let f = u - low as f32;
            let (a, b) = (linear[low], linear[high]);
            mesh.colors
                .push([0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * f));
        }
    }
    let at = |row: u32, column: u32| row * side + column;
    mesh.indices.reserve((cells * cells * 6) as usize);
    for row in 0..cells {
        for column in 0..cells {
            let (a, b) = (at(row, column), at(row + 1, column));
            let (c, d) = (at(row, column + 1), at(row + 1, column + 1));
            mesh.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    mesh.normals = smooth_normals(&mesh.positions, &mesh.indices);
    mesh
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Area-weighted vertex normals, unit length; a vertex with no area around it points
/// away from the axis (or up).
fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut sums = vec![[0.0f32; 3]; positions.len()];
    for triangle in indices.chunks_exact(3) {
        let [a, b, c] = [triangle[0], triangle[1], triangle[2]].map(|i| i as usize);
        let face = cross(
            sub(positions[b], positions[a]),
            sub(positions[c], positions[a]),
        );
        for vertex in [a, b, c] {
            for axis in 0..3 {
                sums[vertex][axis] += face[axis];
            }
        }
    }
    sums.iter()
        .zip(positions)
        .map(|(sum, position)| {
            normalized(*sum)
                .or_else(|| normalized([position[0], 0.0, position[2]]))
                .unwrap_or([0.0, 1.0, 0.0])
        })
        .collect()
}

fn normalized(v: [f32; 3]) -> Option<[f32; 3]> {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (length > 1e-12 && length.is_finite()).then(|| [v[0] / length, v[1] / length, v[2] / length])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_count_follows_the_target_and_normals_are_unit() {
        for target in [1_000, 20_000, 123_456, 300_000] {
            let mesh = build(42, target, &[]);
            let count = mesh.triangle_count() as f64;
            let error = (count - f64::from(target)).abs() / f64::from(target);
            assert!(error < 0.05, "{target} -> {count}");
            for n in &mesh.normals {
                let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                assert!((length - 1.0).abs() < 1e-4);
            }
            assert!(
                mesh.indices
                    .iter()
                    .all(|&i| (i as usize) < mesh.positions.len())
            );
        }
        assert!(build(5, MAX_TRIANGLES, &[]).triangle_count() <= MAX_TRIANGLES as usize);
        // Below the floor the floor is used.
        assert!(build(1, 10, &[]).triangle_count() >= 950);
    }

    #[test]
    fn normals_point_outwards() {
        let mesh = build(7, 4_000, &[]);
        // On the side, a normal agrees with the direction away from the axis.
        let outward = mesh
            .positions
            .iter()
            .zip(&mesh.normals)
            .filter(|(p, n)| p[0] * n[0] + p[2] * n[2] > 0.0)
            .count();
        assert!(outward as f64 > 0.9 * mesh.positions.len() as f64);
    }

    #[test]
    fn a_world_is_an_island_facing_up() {
        let world = build_world(11, 20_000, &[]);
        let count = world.triangle_count() as f64;
        assert!((count - 20_000.0).abs() / 20_000.0 < 0.05, "{count}");
        let up = world.normals.iter().filter(|n| n[1] > 0.0).count();
        assert_eq!(up, world.normals.len());
        // Sea at the edge, land in the middle.
        assert_eq!(world.positions[0][1], 0.0);
        assert!(world.positions.iter().any(|p| p[1] > 0.1));
    }

    #[test]
    fn seeds_make_different_objects() {
        let a = build(1, 2_000, &[]);
        let b = build(2, 2_000, &[]);
        assert_ne!(a.positions, b.positions);
        assert_ne!(a.colors[0], b.colors[0]);
        assert_eq!(build(1, 2_000, &[]).positions, a.positions);
    }
}
