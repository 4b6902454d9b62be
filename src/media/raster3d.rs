//! The 3D viewer's software rasteriser: draws a [`Mesh`] into an RGBA buffer with a
//! perspective orbit camera, back-face culling, a z-buffer and Gouraud shading (one key
//! light that follows the camera, plus ambient) of the vertex colours. No egui here.
//!
//! Why software: egui_kittest renders with wgpu, so a glow paint callback would be
//! invisible in tests and screenshots; a CPU image shows the same pixels everywhere and is
//! uploaded as an ordinary texture. Triangles are rasterised with edge functions inside
//! their bounding box, clipped to the image; the image is split into horizontal bands
//! drawn on two scoped threads.

use super::mesh::{Bounds, Mesh, normalize};

/// Largest image drawn (the viewer scales a bigger widget up from this).
pub const MAX_RENDER_WIDTH_PX: u32 = 1600;
pub const MAX_RENDER_HEIGHT_PX: u32 = 1200;
/// Light that reaches faces turned away from the key light.
const AMBIENT: f32 = 0.28;
const KEY: f32 = 0.72;
/// Barycentric slack at triangle edges.
const EDGE_SLACK: f32 = 1e-4;

/// An orbit camera: it looks at `target` from `distance` away, turned `yaw_rad` around the
/// vertical axis and raised `pitch_rad` above the horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub yaw_rad: f32,
    pub pitch_rad: f32,
    pub distance: f32,
    pub target: [f32; 3],
    /// Vertical field of view.
    pub fov_y_rad: f32,
}

/// The pitch is kept inside ± this so the camera never flips over the pole.
pub const MAX_PITCH_RAD: f32 = 1.45;

impl Camera {
    /// The first view of a model: a little from the right and above, far enough that the
    /// whole bounding sphere fits.
    pub fn framing(bounds: &Bounds) -> Self {
        let fov_y_rad = 40f32.to_radians();
        let radius = bounds.radius().max(1e-4);
        Camera {
            yaw_rad: 0.6,
            pitch_rad: 0.35,
            distance: radius / (fov_y_rad * 0.5).sin() * 1.1,
            target: bounds.center(),
            fov_y_rad,
        }
    }
    /// Turns the camera around the target.
    pub fn orbit(&mut self, delta_yaw_rad: f32, delta_pitch_rad: f32) {
        self.yaw_rad = (self.yaw_rad + delta_yaw_rad).rem_euclid(std::f32::consts::TAU);
        self.pitch_rad = (self.pitch_rad + delta_pitch_rad).clamp(-MAX_PITCH_RAD, MAX_PITCH_RAD);
    }
    /// Moves closer (`factor` < 1) or further away, within `min..=max` distance.
    pub fn zoom(&mut self, factor: f32, min_distance: f32, max_distance: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(min_distance, max_distance);
        }
    }
    fn eye(&self) -> [f32; 3] {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        [
            self.target[0] + self.distance * cp * sy,
            self.target[1] + self.distance * sp,
            self.target[2] + self.distance * cp * cy,
        ]
    }
}

/// An RGBA8 image (rows top to bottom, not premultiplied, opaque) plus the depth buffer
/// kept between frames so a re-render allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct RgbaBuffer {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// What empty pixels are filled with.
    pub background: [u8; 4],
    depth: Vec<f32>,
}

impl RgbaBuffer {
    pub fn new(background: [u8; 4]) -> Self {
        RgbaBuffer {
            background,
            ..RgbaBuffer::default()
        }
    }
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        match self.rgba.get(i..i + 4) {
            Some(p) => [p[0], p[1], p[2], p[3]],
            None => self.background,
        }
    }
    /// Depth (1 / distance along the view axis; 0 = nothing drawn) at a pixel.
    pub fn inverse_depth(&self, x: u32, y: u32) -> f32 {
        self.depth
            .get(y as usize * self.width as usize + x as usize)
            .copied()
            .unwrap_or(0.0)
    }
}

/// What a frame drew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Triangles facing the camera and in front of it (before the z-test).
    pub triangles_drawn: usize,
}

/// A vertex in screen space: pixel x, y; 1/z; shaded sRGB colour 0–255.
#[derive(Clone, Copy, Default)]
struct ScreenVertex {
    x: f32,
    y: f32,
    inv_z: f32,
    color: [f32; 3],
    /// Behind the near plane (triangles using it are skipped).
    clipped: bool,
}

/// Draws `mesh` seen from `camera` into `out`, resized to `width` × `height` (each capped
/// at [`MAX_RENDER_WIDTH_PX`] × [`MAX_RENDER_HEIGHT_PX`], at least 1).
pub fn render(
    mesh: &Mesh,
    camera: &Camera,
    width: u32,
    height: u32,
    out: &mut RgbaBuffer,
) -> RenderStats {
    let width = width.clamp(1, MAX_RENDER_WIDTH_PX);
    let height = height.clamp(1, MAX_RENDER_HEIGHT_PX);
    let pixels = width as usize * height as usize;
    out.width = width;
    out.height = height;
    out.rgba.resize(pixels * 4, 0);
    out.depth.resize(pixels, 0.0);
    let background = out.background;
    for px in out.rgba.chunks_exact_mut(4) {
        px.copy_from_slice(&background);
    }
    out.depth.fill(0.0);

    let vertices = project(mesh, camera, width, height);
    let triangles = &mesh.indices;

    // Two bands on two threads (the machine's cores); one band for tiny images.
    let bands: usize = if height >= 64 { 2 } else { 1 };
    let rows_per_band = (height as usize).div_ceil(bands);
    let row_bytes = width as usize * 4;
    let drawn: usize = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let color_bands = out.rgba.chunks_mut(rows_per_band * row_bytes);
        let depth_bands = out.depth.chunks_mut(rows_per_band * width as usize);
        for (band, (colors, depths)) in color_bands.zip(depth_bands).enumerate() {
            let y0 = band * rows_per_band;
            let vertices = &vertices;
            let mut job = move || {
                raster_band(
                    vertices,
                    triangles,
                    Band {
                        width: width as usize,
                        y0,
                        y1: y0 + depths.len() / width as usize,
                        colors,
                        depths,
                    },
                )
            };
            if band + 1 == bands {
                handles.push(Ok(job()));
            } else {
                handles.push(Err(std::thread::Builder::new()
                    .name("turntable-band".into())
                    .spawn_scoped(scope, job)));
            }
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(n) => n,
                Err(Ok(handle)) => handle.join().unwrap_or(0),
                // Could not start a thread: that band stays empty this frame.
                Err(Err(_)) => 0,
            })
            .max()
            .unwrap_or(0)
    });
    RenderStats {
        triangles_drawn: drawn,
    }
}

fn project(mesh: &Mesh, camera: &Camera, width: u32, height: u32) -> Vec<ScreenVertex> {
    let eye = camera.eye();
    let forward = normalize(sub(camera.target, eye));
    let right = normalize(cross(forward, [0.0, 1.0, 0.0]));
    let up = cross(right, forward);
    // Key light from the upper left, a little behind the viewer.
    let light = normalize([
        -0.45 * right[0] + 0.65 * up[0] - 0.6 * forward[0],
        -0.45 * right[1] + 0.65 * up[1] - 0.6 * forward[1],
        -0.45 * right[2] + 0.65 * up[2] - 0.6 * forward[2],
    ]);
    let focal = 1.0 / (camera.fov_y_rad * 0.5).tan() * height as f32 * 0.5;
    let (cx, cy) = (width as f32 * 0.5, height as f32 * 0.5);
    let near = (camera.distance * 1e-3).max(1e-5);
    mesh.positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let d = sub(*p, eye);
            let z = dot(d, forward);
            let n = mesh.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]);
            let c = mesh.colors.get(i).copied().unwrap_or([0.7; 3]);
            let intensity = AMBIENT + KEY * dot(n, light).max(0.0);
            let color = [
                to_srgb8(c[0] * intensity),
                to_srgb8(c[1] * intensity),
                to_srgb8(c[2] * intensity),
            ];
            if z < near {
                return ScreenVertex {
                    clipped: true,
                    ..ScreenVertex::default()
                };
            }
            let inv_z = 1.0 / z;
            ScreenVertex {
                x: cx + dot(d, right) * inv_z * focal,
                y: cy - dot(d, up) * inv_z * focal,
                inv_z,
                color,
                clipped: false,
            }
        })
        .collect()
}

struct Band<'a> {
    width: usize,
    y0: usize,
    y1: usize,
    colors: &'a mut [u8],
    depths: &'a mut [f32],
}

/// Rasterises every triangle overlapping rows `y0..y1`; returns the triangles facing the
/// camera (counted over the whole image, so every band returns the same number).
fn raster_band(vertices: &[ScreenVertex], indices: &[u32], band: Band<'_>) -> usize {
    let Band {
        width,
        y0,
        y1,
        colors,
        depths,
    } = band;
    let (band_top, band_bottom) = (y0 as f32, y1 as f32);
    let max_x = width as f32;
    let mut facing = 0;
    for tri in indices.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (
            vertices.get(tri[0] as usize),
            vertices.get(tri[1] as usize),
            vertices.get(tri[2] as usize),
        ) else {
            continue;
        };
        if a.clipped || b.clipped || c.clipped {
            continue;
        }
        // Twice the signed area; counter-clockwise in the model is clockwise on screen
        // (y points down), which makes the area negative for a front face.
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area >= 0.0 || area.is_nan() {
            continue;
        }
        facing += 1;
        let min_y = a.y.min(b.y).min(c.y).max(band_top);
        let max_y = a.y.max(b.y).max(c.y).min(band_bottom - 0.001);
        if min_y > max_y {
            continue;
        }
        let min_x = a.x.min(b.x).min(c.x).max(0.0);
        let max_x_tri = a.x.max(b.x).max(c.x).min(max_x - 0.001);
        if min_x > max_x_tri {
            continue;
        }
        let (px0, px1) = (min_x.floor() as usize, max_x_tri.floor() as usize);
        let (py0, py1) = (min_y.floor() as usize, (max_y.floor() as usize).min(y1 - 1));
        let inv_area = 1.0 / area;
        // Edge functions (weights of a, b, c), stepped per pixel.
        let e_a = Edge::new(b, c, inv_area);
        let e_b = Edge::new(c, a, inv_area);
        let e_c = Edge::new(a, b, inv_area);
        let start_x = px0 as f32 + 0.5;
        for py in py0..=py1 {
            let sy = py as f32 + 0.5;
            let mut wa = e_a.at(start_x, sy);
            let mut wb = e_b.at(start_x, sy);
            let mut wc = e_c.at(start_x, sy);
            let row = (py - y0) * width;
            for px in px0..=px1 {
                // A hair of slack so shared edges leave no pinholes (the z-test settles overlaps).
                if wa >= -EDGE_SLACK && wb >= -EDGE_SLACK && wc >= -EDGE_SLACK {
                    let inv_z = wa * a.inv_z + wb * b.inv_z + wc * c.inv_z;
                    let i = row + px;
                    if inv_z > depths[i] {
                        depths[i] = inv_z;
                        let o = i * 4;
                        let px_color = &mut colors[o..o + 4];
                        for (ch, out) in px_color.iter_mut().take(3).enumerate() {
                            let v = wa * a.color[ch] + wb * b.color[ch] + wc * c.color[ch];
                            *out = v.clamp(0.0, 255.0) as u8;
                        }
                        px_color[3] = 255;
                    }
                }
                wa += e_a.step_x;
                wb += e_b.step_x;
                wc += e_c.step_x;
            }
        }
    }
    facing
}

/// The barycentric weight of the vertex opposite the edge `p → q`, as a linear function
/// of the pixel position, already divided by the triangle's area.
struct Edge {
    step_x: f32,
    step_y: f32,
    origin: f32,
}

impl Edge {
    fn new(p: &ScreenVertex, q: &ScreenVertex, inv_area: f32) -> Self {
        // w(x, y) = (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x)
        let step_x = -(q.y - p.y) * inv_area;
        let step_y = (q.x - p.x) * inv_area;
        let origin = (-(q.x - p.x) * p.y + (q.y - p.y) * p.x) * inv_area;
        Edge {
            step_x,
            step_y,
            origin,
        }
    }
    fn at(&self, x: f32, y: f32) -> f32 {
        self.origin + self.step_x * x + self.step_y * y
    }
}

fn to_srgb8(linear: f32) -> f32 {
    let l = linear.clamp(0.0, 1.0);
    // A close approximation of the sRGB curve, cheap enough per vertex.
    l.powf(1.0 / 2.2) * 255.0
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::mesh::testing;

    const BG: [u8; 4] = [10, 20, 30, 255];

    fn drawn_box(buffer: &RgbaBuffer) -> Option<(u32, u32, u32, u32)> {
        let mut found: Option<(u32, u32, u32, u32)> = None;
        for y in 0..buffer.height {
            for x in 0..buffer.width {
                if buffer.pixel(x, y) != BG {
                    found = Some(match found {
                        None => (x, y, x, y),
                        Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                    });
                }
            }
        }
        found
    }

    #[test]
    fn a_cube_renders_non_empty_and_centred() {
        let cube = testing::cube(0.5);
        let camera = Camera::framing(&cube.bounds);
        let mut buffer = RgbaBuffer::new(BG);
        let stats = render(&cube, &camera, 200, 150, &mut buffer);
        // From a corner-ish view three faces (six triangles) face the camera.
        assert_eq!(stats.triangles_drawn, 6);
        let (x0, _, x1, _) = drawn_box(&buffer).expect("the cube was drawn");
        // It fills a fair part of the view but fits inside it.
        assert!(x1 - x0 > 40 && x0 > 0 && x1 < 199, "{x0}..{x1}");
        assert!(buffer.pixel(100, 75)[3] == 255 && buffer.pixel(100, 75) != BG);
        // Seen level and along a diagonal, its outline is centred in the image.
        let level = Camera {
            yaw_rad: std::f32::consts::FRAC_PI_4,
            pitch_rad: 0.0,
            ..camera
        };
        render(&cube, &level, 200, 150, &mut buffer);
        let (x0, y0, x1, y1) = drawn_box(&buffer).expect("the cube was drawn");
        let (cx, cy) = ((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0);
        assert!((cx - 99.5).abs() <= 1.0, "centre x {cx}");
        assert!((cy - 74.5).abs() <= 1.0, "centre y {cy}");
    }

    #[test]
    fn the_nearer_surface_wins_the_depth_test() {
        // Two cubes on the view axis: the near one (green-ish faces differ from the far
        // one's) must cover the centre, whatever the drawing order.
        let near = testing::cube(0.3);
        let mut far = testing::cube(1.2);
        for p in &mut far.positions {
            p[2] -= 3.0;
        }
        for c in &mut far.colors {
            *c = [1.0, 1.0, 1.0];
        }
        for order in [0, 1] {
            let (first, second) = if order == 0 {
                (&near, &far)
            } else {
                (&far, &near)
            };
            let mut positions = first.positions.clone();
            let mut colors = first.colors.clone();
            let mut normals = first.normals.clone();
            let mut indices = first.indices.clone();
            let base = positions.len() as u32;
            positions.extend(&second.positions);
            colors.extend(&second.colors);
            normals.extend(&second.normals);
            indices.extend(second.indices.iter().map(|i| i + base));
            let mut both = Mesh::from_triangles(positions, colors, indices);
            both.normals = normals;
            let camera = Camera {
                yaw_rad: 0.0,
                pitch_rad: 0.0,
                distance: 3.0,
                target: [0.0; 3],
                fov_y_rad: 0.8,
            };
            let mut buffer = RgbaBuffer::new(BG);
            render(&both, &camera, 120, 120, &mut buffer);
            let centre = buffer.pixel(60, 60);
            // The near cube's front face is magenta (0.9, 0.2, 0.9): red and blue high,
            // green low; the far cube is white.
            assert!(
                (centre[1] as u32) < centre[0] as u32 * 2 / 3,
                "order {order}: {centre:?}"
            );
            // Its depth is that of the near face (distance 3 - 0.3).
            let depth = 1.0 / buffer.inverse_depth(60, 60);
            assert!((depth - 2.7).abs() < 0.01, "depth {depth}");
            // The far cube shows around the near one.
            let edge = buffer.pixel(60, 30);
            assert!(edge[0] > 150 && edge[1] > 150 && edge[2] > 150, "{edge:?}");
        }
    }

    #[test]
    fn back_faces_are_culled() {
        let cube = testing::cube(0.5);
        let camera = Camera {
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            distance: 4.0,
            target: [0.0; 3],
            fov_y_rad: 0.8,
        };
        let mut buffer = RgbaBuffer::new(BG);
        // Straight on: only the +z face (two triangles) faces the camera.
        assert_eq!(
            render(&cube, &camera, 64, 64, &mut buffer).triangles_drawn,
            2
        );
    }

    #[test]
    fn orbiting_changes_the_picture_and_turning_back_restores_it() {
        let sphere = testing::sphere(4_000);
        let mut cube = testing::cube(0.5);
        // A lopsided model so a turn shows.
        for p in &mut cube.positions {
            p[0] += 1.0;
        }
        let base = sphere.positions.len() as u32;
        let mut positions = sphere.positions.clone();
        positions.extend(&cube.positions);
        let mut colors = sphere.colors.clone();
        colors.extend(&cube.colors);
        let mut indices = sphere.indices.clone();
        indices.extend(cube.indices.iter().map(|i| i + base));
        let model = Mesh::from_triangles(positions, colors, indices);
        let first = Camera::framing(&model.bounds);
        let mut a = RgbaBuffer::new(BG);
        render(&model, &first, 160, 120, &mut a);
        let mut turned = first;
        turned.orbit(0.8, 0.2);
        let mut b = RgbaBuffer::new(BG);
        render(&model, &turned, 160, 120, &mut b);
        assert_ne!(a.rgba, b.rgba);
        turned.orbit(-0.8, -0.2);
        render(&model, &turned, 160, 120, &mut b);
        let differing = a.rgba.iter().zip(&b.rgba).filter(|(x, y)| x != y).count();
        assert!(differing < a.rgba.len() / 200, "{differing}");
    }

    #[test]
    fn sizes_are_capped_and_never_zero() {
        let cube = testing::cube(0.5);
        let camera = Camera::framing(&cube.bounds);
        let mut buffer = RgbaBuffer::new(BG);
        render(&cube, &camera, 0, 0, &mut buffer);
        assert_eq!((buffer.width, buffer.height), (1, 1));
        render(&cube, &camera, 5000, 5000, &mut buffer);
        assert_eq!(
            (buffer.width, buffer.height),
            (MAX_RENDER_WIDTH_PX, MAX_RENDER_HEIGHT_PX)
        );
        assert_eq!(buffer.rgba.len(), (1600 * 1200 * 4) as usize);
    }

    #[test]
    fn a_camera_inside_the_model_draws_without_panicking() {
        let sphere = testing::sphere(1_000);
        let mut camera = Camera::framing(&sphere.bounds);
        camera.distance = 0.01;
        let mut buffer = RgbaBuffer::new(BG);
        render(&sphere, &camera, 64, 48, &mut buffer);
    }
}
