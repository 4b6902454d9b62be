//! A 3D model read from a GLB (binary glTF 2.0) or a self-contained `.gltf` into one flat
//! triangle [`Mesh`] the software rasteriser ([`super::raster3d`]) draws. No egui here.
//!
//! Every primitive of the default scene (or of every mesh when the file has no scene) is
//! placed with its node's transform and merged. Vertex colours (`COLOR_0`) are used when
//! present, else the material's base colour, else a neutral grey. Missing normals are
//! computed from the faces. A damaged file, one with no triangles, one that points at
//! external files, or one past the size caps is refused with a [`MeshError`] that says so
//! in words; the loader never panics on what it is given (a panic inside the `gltf` crate
//! is caught and reported as a damaged file).

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Files larger than this are refused before parsing.
pub const MAX_MESH_FILE_BYTES: usize = 256 * 1024 * 1024;
/// Models with more triangles than this are refused (the viewer would not turn them
/// smoothly, and the memory would be large).
pub const MAX_TRIANGLES: usize = 2_000_000;
/// Colour used when the model carries neither vertex colours nor a base colour.
pub const DEFAULT_COLOR: [f32; 3] = [0.72, 0.72, 0.75];

/// Axis-aligned bounds of the model's positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    pub fn center(&self) -> [f32; 3] {
        [
            (self.min[0] + self.max[0]) * 0.5,
            (self.min[1] + self.max[1]) * 0.5,
            (self.min[2] + self.max[2]) * 0.5,
        ]
    }
    /// Edge lengths along x, y, z (model units, usually metres).
    pub fn size(&self) -> [f32; 3] {
        [
            self.max[0] - self.min[0],
            self.max[1] - self.min[1],
            self.max[2] - self.min[2],
        ]
    }
    /// Radius of the bounding sphere around [`Bounds::center`].
    pub fn radius(&self) -> f32 {
        let [x, y, z] = self.size();
        0.5 * (x * x + y * y + z * z).sqrt()
    }
    fn of(positions: &[[f32; 3]]) -> Self {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in positions {
            for axis in 0..3 {
                min[axis] = min[axis].min(p[axis]);
                max[axis] = max[axis].max(p[axis]);
            }
        }
        if positions.is_empty() {
            return Bounds {
                min: [0.0; 3],
                max: [0.0; 3],
            };
        }
        Bounds { min, max }
    }
}

/// One triangle mesh: per-vertex positions, normals (unit length) and linear RGB colours
/// (0–1), and three indices per triangle.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
    pub bounds: Bounds,
}

impl Mesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    /// A mesh from positions, colours and indices; normals are computed (smooth, area
    /// weighted). Used by tests, benches and the loader when a file has no normals.
    pub fn from_triangles(
        positions: Vec<[f32; 3]>,
        colors: Vec<[f32; 3]>,
        indices: Vec<u32>,
    ) -> Self {
        let normals = smooth_normals(&positions, &indices);
        let bounds = Bounds::of(&positions);
        Mesh {
            positions,
            normals,
            colors,
            indices,
            bounds,
        }
    }
}

/// Why a model could not be shown.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MeshError {
    #[error("This file is {size_mb} MB; models up to {max_mb} MB can be shown.")]
    TooLarge { size_mb: usize, max_mb: usize },
    #[error("This model has {triangles} triangles; up to {max} can be shown.")]
    TooManyTriangles { triangles: usize, max: usize },
    #[error("This file is not a readable 3D model (GLB or glTF): {0}")]
    Damaged(String),
    #[error("This model has no triangles to show.")]
    NoMesh,
    #[error(
        "This model refers to other files ({0}) that were not downloaded with it; only self-contained GLB files can be shown."
    )]
    ExternalFiles(String),
}

/// Reads a GLB (or a `.gltf` with embedded buffers) into one mesh.
pub fn load_glb(bytes: &[u8]) -> Result<Mesh, MeshError> {
    if bytes.len() > MAX_MESH_FILE_BYTES {
        return Err(MeshError::TooLarge {
            size_mb: bytes.len() / (1024 * 1024),
            max_mb: MAX_MESH_FILE_BYTES / (1024 * 1024),
        });
    }
    check_glb_header(bytes)?;
    match catch_unwind(AssertUnwindSafe(|| load_unchecked(bytes))) {
        Ok(result) => result,
        Err(_) => Err(MeshError::Damaged("its data is inconsistent".into())),
    }
}

/// The `gltf` crate subtracts the header size from the declared length without checking
/// it; refuse such headers here.
fn check_glb_header(bytes: &[u8]) -> Result<(), MeshError> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    if bytes.len() < 12 {
        return Err(MeshError::Damaged("the file is cut short".into()));
    }
    let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if declared < 12 {
        return Err(MeshError::Damaged("its header is invalid".into()));
    }
    Ok(())
}

fn load_unchecked(bytes: &[u8]) -> Result<Mesh, MeshError> {
    let gltf::Gltf { document, blob } =
        gltf::Gltf::from_slice(bytes).map_err(|e| MeshError::Damaged(e.to_string()))?;
    let external: Vec<String> = document
        .buffers()
        .filter_map(|b| match b.source() {
            gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => Some(uri.to_owned()),
            _ => None,
        })
        .collect();
    if !external.is_empty() {
        return Err(MeshError::ExternalFiles(external.join(", ")));
    }
    // Count first so a huge model is refused before anything is read.
    let triangles: usize = document
        .meshes()
        .flat_map(|m| m.primitives())
        .filter(|p| p.mode() == gltf::mesh::Mode::Triangles)
        .map(|p| match p.indices() {
            Some(a) => a.count() / 3,
            None => p
                .get(&gltf::Semantic::Positions)
                .map_or(0, |a| a.count() / 3),
        })
        .sum();
    if triangles > MAX_TRIANGLES {
        return Err(MeshError::TooManyTriangles {
            triangles,
            max: MAX_TRIANGLES,
        });
    }
    if triangles == 0 {
        return Err(MeshError::NoMesh);
    }
    let buffers = gltf::import_buffers(&document, None, blob)
        .map_err(|e| MeshError::Damaged(e.to_string()))?;

    let mut out = Builder::default();
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    match document
        .default_scene()
        .or_else(|| document.scenes().next())
    {
        Some(scene) => {
            for node in scene.nodes() {
                out.add_node(&node, identity, &buffers, 0)?;
            }
        }
        None => {
            for mesh in document.meshes() {
                out.add_mesh(&mesh, identity, &buffers)?;
            }
        }
    }
    out.finish()
}

#[derive(Default)]
struct Builder {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 3]>,
    indices: Vec<u32>,
    /// Whether every primitive so far carried normals.
    all_normals: bool,
    any_primitive: bool,
}

/// Node hierarchies deeper than this are treated as damaged (cycles are refused by the
/// crate's validation; this bounds the recursion anyway).
const MAX_NODE_DEPTH: usize = 64;

impl Builder {
    fn add_node(
        &mut self,
        node: &gltf::Node,
        parent: [[f32; 4]; 4],
        buffers: &[gltf::buffer::Data],
        depth: usize,
    ) -> Result<(), MeshError> {
        if depth > MAX_NODE_DEPTH {
            return Err(MeshError::Damaged("its node tree is too deep".into()));
        }
        let matrix = mat_mul(parent, node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            self.add_mesh(&mesh, matrix, buffers)?;
        }
        for child in node.children() {
            self.add_node(&child, matrix, buffers, depth + 1)?;
        }
        Ok(())
    }

    fn add_mesh(
        &mut self,
        mesh: &gltf::Mesh,
        matrix: [[f32; 4]; 4],
        buffers: &[gltf::buffer::Data],
    ) -> Result<(), MeshError> {
        for primitive in mesh.primitives() {
            if primitive.mode() != gltf::mesh::Mode::Triangles {
                continue;
            }
            let reader = primitive.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
            let Some(positions) = reader.read_positions() else {
                continue;
            };
            let base = self.positions.len();
            let first_index = self.indices.len();
            self.positions
                .extend(positions.map(|p| transform_point(&matrix, p)));
            let count = self.positions.len() - base;
            if count == 0 {
                continue;
            }
            if self.positions.len() > u32::MAX as usize {
                return Err(MeshError::Damaged("it has too many vertices".into()));
            }
            let had_normals_so_far = !self.any_primitive || self.all_normals;
            match reader.read_normals() {
                Some(normals) if had_normals_so_far => {
                    self.normals.extend(
                        normals
                            .take(count)
                            .map(|n| normalize(transform_dir(&matrix, n))),
                    );
                    // Pad a short normal list.
                    self.normals.resize(base + count, [0.0, 1.0, 0.0]);
                    self.all_normals = true;
                }
                _ => self.all_normals = false,
            }
            let base_color = {
                let c = primitive
                    .material()
                    .pbr_metallic_roughness()
                    .base_color_factor();
                [c[0], c[1], c[2]]
            };
            match reader.read_colors(0) {
                Some(colors) => {
                    self.colors
                        .extend(colors.into_rgb_f32().take(count).map(|c| {
                            [
                                c[0] * base_color[0],
                                c[1] * base_color[1],
                                c[2] * base_color[2],
                            ]
                        }));
                    self.colors.resize(base + count, base_color);
                }
                None => {
                    let color = if primitive.material().index().is_some() {
                        base_color
                    } else {
                        DEFAULT_COLOR
                    };
                    self.colors.resize(base + count, color);
                }
            }
            match reader.read_indices() {
                Some(indices) => {
                    for i in indices.into_u32() {
                        if i as usize >= count {
                            return Err(MeshError::Damaged(
                                "a triangle points past the vertex list".into(),
                            ));
                        }
                        self.indices.push(base as u32 + i);
                    }
                }
                None => self
                    .indices
                    .extend((0..count as u32).map(|i| base as u32 + i)),
            }
            // Drop an incomplete last triangle.
            let whole = first_index + (self.indices.len() - first_index) / 3 * 3;
            self.indices.truncate(whole);
            if self.indices.len() / 3 > MAX_TRIANGLES {
                return Err(MeshError::TooManyTriangles {
                    triangles: self.indices.len() / 3,
                    max: MAX_TRIANGLES,
                });
            }
            self.any_primitive = true;
        }
        Ok(())
    }

    fn finish(self) -> Result<Mesh, MeshError> {
        if self.indices.is_empty() {
            return Err(MeshError::NoMesh);
        }
        if self.positions.iter().flatten().any(|v| !v.is_finite()) {
            return Err(MeshError::Damaged("some positions are not numbers".into()));
        }
        if self.all_normals && self.normals.len() == self.positions.len() {
            let bounds = Bounds::of(&self.positions);
            Ok(Mesh {
                positions: self.positions,
                normals: self.normals,
                colors: self.colors,
                indices: self.indices,
                bounds,
            })
        } else {
            Ok(Mesh::from_triangles(
                self.positions,
                self.colors,
                self.indices,
            ))
        }
    }
}

fn mat_mul(a: [[f32; 4]; 4], b: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    // Column-major, as glTF stores them: result = a * b.
    let mut out = [[0.0; 4]; 4];
    for (col, out_col) in out.iter_mut().enumerate() {
        for (row, cell) in out_col.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[k][row] * b[col][k]).sum();
        }
    }
    out
}

fn transform_point(m: &[[f32; 4]; 4], p: [f32; 3]) -> [f32; 3] {
    [
        m[0][0] * p[0] + m[1][0] * p[1] + m[2][0] * p[2] + m[3][0],
        m[0][1] * p[0] + m[1][1] * p[1] + m[2][1] * p[2] + m[3][1],
        m[0][2] * p[0] + m[1][2] * p[1] + m[2][2] * p[2] + m[3][2],
    ]
}

fn transform_dir(m: &[[f32; 4]; 4], d: [f32; 3]) -> [f32; 3] {
    // Fine for rotations and uniform scale, which is what generated models carry.
    [
        m[0][0] * d[0] + m[1][0] * d[1] + m[2][0] * d[2],
        m[0][1] * d[0] + m[1][1] * d[1] + m[2][1] * d[2],
        m[0][2] * d[0] + m[1][2] * d[1] + m[2][2] * d[2],
    ]
}

pub(crate) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 1e-20 && len.is_finite() {
        [v[0] / len, v[1] / len, v[2] / len]
    } else {
        [0.0, 1.0, 0.0]
    }
}

fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut normals = vec![[0.0f32; 3]; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let (Some(pa), Some(pb), Some(pc)) = (positions.get(a), positions.get(b), positions.get(c))
        else {
            continue;
        };
        let e1 = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
        let e2 = [pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        for v in [a, b, c] {
            for axis in 0..3 {
                normals[v][axis] += n[axis];
            }
        }
    }
    normals.into_iter().map(normalize).collect()
}

/// Test and bench helpers: a GLB written without the sandbox (one indexed mesh with
/// POSITION, NORMAL, COLOR_0). Not a stable API.
#[doc(hidden)]
pub mod testing {
    use super::Mesh;

    /// A UV sphere with about `triangles` triangles (at least 8), coloured by height.
    pub fn sphere(triangles: usize) -> Mesh {
        let rings = ((triangles as f32 / 2.0).sqrt().max(2.0)) as u32;
        let segments = (triangles as u32 / (2 * rings)).max(4);
        let mut positions = Vec::new();
        let mut colors = Vec::new();
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..=segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                let p = [
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ];
                colors.push([
                    0.3 + 0.5 * (p[1] * 0.5 + 0.5),
                    0.4,
                    0.8 - 0.4 * (p[1] * 0.5 + 0.5),
                ]);
                positions.push(p);
            }
        }
        let mut indices = Vec::new();
        let row = segments + 1;
        for r in 0..rings {
            for s in 0..segments {
                let a = r * row + s;
                let b = a + row;
                // Counter-clockwise seen from outside.
                indices.extend([a, a + 1, b, a + 1, b + 1, b]);
            }
        }
        Mesh::from_triangles(positions, colors, indices)
    }

    /// An axis-aligned cube of edge `2 * half` at the origin, 12 triangles, flat normals,
    /// each face its own colour.
    pub fn cube(half: f32) -> Mesh {
        type Face = ([f32; 3], [f32; 3], [f32; 3], [f32; 3]);
        let faces: [Face; 6] = [
            (
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [0.9, 0.2, 0.2],
            ),
            (
                [-1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, -1.0],
                [0.2, 0.9, 0.2],
            ),
            (
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 0.0],
                [0.2, 0.2, 0.9],
            ),
            (
                [0.0, -1.0, 0.0],
                [0.0, 0.0, -1.0],
                [1.0, 0.0, 0.0],
                [0.9, 0.9, 0.2],
            ),
            (
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.9, 0.2, 0.9],
            ),
            (
                [0.0, 0.0, -1.0],
                [-1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.2, 0.9, 0.9],
            ),
        ];
        let mut positions = Vec::new();
        let mut normals = Vec::new();
        let mut colors = Vec::new();
        let mut indices = Vec::new();
        for (n, u, v, color) in faces {
            let base = positions.len() as u32;
            for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                positions.push([
                    half * (n[0] + su * u[0] + sv * v[0]),
                    half * (n[1] + su * u[1] + sv * v[1]),
                    half * (n[2] + su * u[2] + sv * v[2]),
                ]);
                normals.push(n);
                colors.push(color);
            }
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        let bounds = super::Bounds::of(&positions);
        Mesh {
            positions,
            normals,
            colors,
            indices,
            bounds,
        }
    }

    /// The mesh written as a GLB (glTF 2.0 binary): one buffer in the BIN chunk.
    pub fn to_glb(mesh: &Mesh) -> Vec<u8> {
        let mut bin = Vec::new();
        for p in &mesh.positions {
            for v in p {
                bin.extend_from_slice(&v.to_le_bytes());
            }
        }
        let normals_offset = bin.len();
        for n in &mesh.normals {
            for v in n {
                bin.extend_from_slice(&v.to_le_bytes());
            }
        }
        let colors_offset = bin.len();
        for c in &mesh.colors {
            for v in c {
                bin.extend_from_slice(&v.to_le_bytes());
            }
        }
        let indices_offset = bin.len();
        for i in &mesh.indices {
            bin.extend_from_slice(&i.to_le_bytes());
        }
        let vertex_bytes = mesh.positions.len() * 12;
        let b = mesh.bounds;
        let json = serde_json::json!({
            "asset": {"version": "2.0", "generator": "framewright tests"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{
                "attributes": {"POSITION": 0, "NORMAL": 1, "COLOR_0": 2},
                "indices": 3,
                "mode": 4
            }]}],
            "buffers": [{"byteLength": bin.len()}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": vertex_bytes, "target": 34962},
                {"buffer": 0, "byteOffset": normals_offset, "byteLength": vertex_bytes, "target": 34962},
                {"buffer": 0, "byteOffset": colors_offset, "byteLength": vertex_bytes, "target": 34962},
                {"buffer": 0, "byteOffset": indices_offset, "byteLength": mesh.indices.len() * 4, "target": 34963}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": mesh.positions.len(), "type": "VEC3",
                 "min": b.min, "max": b.max},
                {"bufferView": 1, "componentType": 5126, "count": mesh.positions.len(), "type": "VEC3"},
                {"bufferView": 2, "componentType": 5126, "count": mesh.positions.len(), "type": "VEC3"},
                {"bufferView": 3, "componentType": 5125, "count": mesh.indices.len(), "type": "SCALAR"}
            ]
        });
        let mut json = json.to_string().into_bytes();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_glb_loads_back_with_its_triangles_colours_and_bounds() {
        let cube = testing::cube(0.5);
        let loaded = load_glb(&testing::to_glb(&cube)).unwrap();
        assert_eq!(loaded.triangle_count(), 12);
        assert_eq!(loaded.vertex_count(), 24);
        assert_eq!(loaded.bounds.min, [-0.5; 3]);
        assert_eq!(loaded.bounds.max, [0.5; 3]);
        assert_eq!(loaded.colors[0], [0.9, 0.2, 0.2]);
        assert_eq!(loaded.normals[0], [1.0, 0.0, 0.0]);
    }

    #[test]
    fn the_sandboxs_generated_glb_loads_with_its_asked_triangle_count() {
        for asked in [1_000u32, 20_000, 100_000] {
            let bytes = crate::sandbox::procedural_glb(5, asked);
            let mesh = load_glb(&bytes).unwrap();
            let got = mesh.triangle_count() as f64;
            assert!(
                (got - f64::from(asked)).abs() <= f64::from(asked) * 0.05,
                "{asked}: {got}"
            );
            assert_eq!(mesh.normals.len(), mesh.positions.len());
            assert_eq!(mesh.colors.len(), mesh.positions.len());
            assert!(mesh.bounds.radius() > 0.0);
        }
    }

    #[test]
    fn the_written_glb_passes_the_gltf_crates_own_import() {
        let bytes = testing::to_glb(&testing::sphere(2_000));
        gltf::import_slice(&bytes).unwrap();
    }

    #[test]
    fn damaged_files_are_refused_in_words_without_panicking() {
        let good = testing::to_glb(&testing::cube(1.0));
        assert!(matches!(load_glb(b""), Err(MeshError::Damaged(_))));
        assert!(matches!(load_glb(b"glTF"), Err(MeshError::Damaged(_))));
        // Declared length smaller than the header (the gltf crate would underflow).
        let mut short = good.clone();
        short[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(matches!(load_glb(&short), Err(MeshError::Damaged(_))));
        for cut in [13, 40, good.len() / 2, good.len() - 3] {
            assert!(load_glb(&good[..cut]).is_err(), "cut at {cut}");
        }
        let message = load_glb(b"not a model").unwrap_err().to_string();
        assert!(
            message.starts_with("This file is not a readable 3D model"),
            "{message}"
        );
    }

    #[test]
    fn a_model_without_triangles_or_with_external_files_is_refused() {
        let empty = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}],"scene":0}"#;
        assert_eq!(load_glb(empty), Err(MeshError::NoMesh));
        let external = br#"{"asset":{"version":"2.0"},
            "buffers":[{"uri":"model.bin","byteLength":36}],
            "bufferViews":[{"buffer":0,"byteLength":36}],
            "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
            "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}"#;
        assert_eq!(
            load_glb(external),
            Err(MeshError::ExternalFiles("model.bin".into()))
        );
    }

    #[test]
    fn an_oversized_triangle_count_is_refused_before_reading() {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},
            "buffers":[{{"byteLength":12}}],
            "bufferViews":[{{"buffer":0,"byteLength":12}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":1,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}},
                         {{"bufferView":0,"componentType":5125,"count":{},"type":"SCALAR"}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}]}}"#,
            (MAX_TRIANGLES + 1) * 3
        );
        let result = load_glb(json.as_bytes());
        assert!(
            matches!(
                result,
                Err(MeshError::TooManyTriangles { .. }) | Err(MeshError::Damaged(_))
            ),
            "{result:?}"
        );
    }

    #[test]
    fn missing_normals_are_computed_pointing_outwards() {
        let sphere = testing::sphere(500);
        for (p, n) in sphere.positions.iter().zip(&sphere.normals) {
            let dot = p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
            // Poles have degenerate neighbours; everything else points out.
            if p[1].abs() < 0.99 {
                assert!(dot > 0.5, "{p:?} {n:?}");
            }
        }
    }
}
