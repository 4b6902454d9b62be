//! The model's preview: a small z-buffer rasteriser (three-quarter view from above,
//! orthographic, Gouraud shading with one key light, a fill and a highlight) over a
//! vertical gradient backdrop.

use image::{Rgb, RgbImage};

use super::mesh::{Mesh, linear_to_srgb};

/// Side of the square thumbnail in pixels.
pub(crate) const THUMBNAIL_SIDE_PX: u32 = 512;
/// Turn about the vertical axis and tilt towards the camera (radians).
const YAW: f32 = 0.61;
const PITCH: f32 = 0.44;
/// Share of the frame the model's bounding sphere fills.
const FILL: f32 = 0.82;

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn unit(v: [f32; 3]) -> [f32; 3] {
    let length = dot(v, v).sqrt().max(1e-9);
    [v[0] / length, v[1] / length, v[2] / length]
}

/// Rotation into view space: yaw about Y, then pitch about X (the camera looks down -Z).
fn to_view(p: [f32; 3]) -> [f32; 3] {
    let (sy, cy) = YAW.sin_cos();
    let (sp, cp) = PITCH.sin_cos();
    let x = cy * p[0] - sy * p[2];
    let z = sy * p[0] + cy * p[2];
    let y = p[1];
    [x, cp * y - sp * z, sp * y + cp * z]
}

/// The mesh drawn at `side_px` × `side_px`.
pub(crate) fn render(mesh: &Mesh, side_px: u32) -> RgbImage {
    let side = side_px.max(1);
    let mut image = RgbImage::from_fn(side, side, |_, y| {
        let t = y as f32 / side as f32;
        let top = [0.16, 0.17, 0.21];
        let bottom = [0.05, 0.05, 0.07];
        let c = [0, 1, 2].map(|i| top[i] + (bottom[i] - top[i]) * t);
        Rgb(c.map(|v| (v * 255.0) as u8))
    });
    if mesh.positions.is_empty() {
        return image;
    }
    let (min, max) = mesh.bounds();
    let centre = [0, 1, 2].map(|i| (min[i] + max[i]) / 2.0);
    let radius = mesh
        .positions
        .iter()
        .map(|p| {
            let d = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
            dot(d, d)
        })
        .fold(0.0f32, f32::max)
        .sqrt()
        .max(1e-6);
    let scale = FILL * side as f32 / (2.0 * radius);
    let half = side as f32 / 2.0;
    let key = unit([-0.45, 0.75, 0.55]);
    let fill = unit([0.6, -0.1, 0.4]);
    let halfway = unit([key[0], key[1], key[2] + 1.0]);
    // Screen position, depth (larger is nearer) and shaded linear colour per vertex.
    let vertices: Vec<([f32; 2], f32, [f32; 3])> = mesh
        .positions
        .iter()
        .zip(&mesh.normals)
        .zip(&mesh.colors)
        .map(|((p, n), c)| {
            let v = to_view([p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]]);
            let n = to_view(*n);
            let diffuse = dot(n, key).max(0.0);
            let fill_light = 0.3 * dot(n, fill).max(0.0);
            let specular = 0.35 * dot(n, halfway).max(0.0).powi(24);
            let light = 0.18 + 0.8 * diffuse + fill_light;
            let shaded = c.map(|channel| channel * light + specular);
            ([half + v[0] * scale, half - v[1] * scale], v[2], shaded)
        })
        .collect();
    let mut depth = vec![f32::NEG_INFINITY; (side * side) as usize];
    for triangle in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [triangle[0], triangle[1], triangle[2]].map(|i| &vertices[i as usize]);
        draw_triangle(&mut image, &mut depth, [a, b, c]);
    }
    image
}

type Vertex = ([f32; 2], f32, [f32; 3]);

fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

fn draw_triangle(image: &mut RgbImage, depth: &mut [f32], [a, b, c]: [&Vertex; 3]) {
    let area = edge(a.0, b.0, c.0);
    if area.abs() < 1e-9 || !area.is_finite() {
        return;
    }
    let (width, height) = (image.width() as i64, image.height() as i64);
    let min_x = (a.0[0].min(b.0[0]).min(c.0[0]).floor() as i64).max(0);
    let max_x = (a.0[0].max(b.0[0]).max(c.0[0]).ceil() as i64).min(width - 1);
    let min_y = (a.0[1].min(b.0[1]).min(c.0[1]).floor() as i64).max(0);
    let max_y = (a.0[1].max(b.0[1]).max(c.0[1]).ceil() as i64).min(height - 1);
    for y in min_y..=max_y {
        for x in min_x..=max_x {
            let p = [x as f32 + 0.5, y as f32 + 0.5];
            let w0 = edge(b.0, c.0, p) / area;
            let w1 = edge(c.0, a.0, p) / area;
            let w2 = edge(a.0, b.0, p) / area;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let z = w0 * a.1 + w1 * b.1 + w2 * c.1;
            let slot = (y * width + x) as usize;
            if z <= depth[slot] {
                continue;
            }
            depth[slot] = z;
            let colour = [0, 1, 2].map(|i| {
                let linear = w0 * a.2[i] + w1 * b.2[i] + w2 * c.2[i];
                (linear_to_srgb(linear) * 255.0).round() as u8
            });
            image.put_pixel(x as u32, y as u32, Rgb(colour));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::model3d::mesh::build;

    #[test]
    fn the_object_covers_the_middle_and_not_the_corner() {
        let mesh = build(9, 3_000, &[[200, 40, 40]]);
        let image = render(&mesh, 128);
        let centre = image.get_pixel(64, 64);
        let corner = image.get_pixel(1, 1);
        assert_ne!(centre, corner);
        // The centre shows the (reddish) object.
        assert!(centre[0] > centre[2], "{centre:?}");
    }
}
