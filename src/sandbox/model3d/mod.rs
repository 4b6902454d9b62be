//! The sandbox's own 3D models (POST /v1/generate/3d): a procedural mesh from the seed,
//! written as GLB and OBJ, with a PNG preview from a small software rasteriser. Nothing
//! here uses the studio's `media` code: the two sides must not share a misreading.

mod glb;
pub(crate) mod job;
pub(crate) mod mesh;
mod obj;
mod thumbnail;

pub(crate) use glb::Material;
pub(crate) use thumbnail::THUMBNAIL_SIDE_PX;

use crate::sandbox::ids::SplitMix;

/// The files of one generated model.
pub(crate) struct ModelFiles {
    pub glb: Vec<u8>,
    pub obj: String,
    pub thumbnail: image::RgbImage,
    pub triangles: usize,
}

/// A metallic-roughness material from the seed (`enable_pbr`); else plain matte.
pub(crate) fn material_for(seed: u64, pbr: bool) -> Material {
    if !pbr {
        return Material::MATTE;
    }
    let mut rng = SplitMix::new(seed ^ 0x0bb1_e5ee_d000_0001);
    Material {
        base_color: [1.0, 1.0, 1.0, 1.0],
        metallic: rng.range_f32(0.1, 0.7),
        roughness: rng.range_f32(0.25, 0.7),
    }
}

/// Builds the model for `seed` with about `triangles` triangles, coloured from `palette`
/// (sRGB; the seed's own palette when empty) — an island heightfield when `world` — and
/// renders its preview.
pub(crate) fn make(
    seed: u64,
    triangles: u32,
    palette: &[[u8; 3]],
    pbr: bool,
    world: bool,
    name: &str,
) -> ModelFiles {
    let mesh = if world {
        mesh::build_world(seed, triangles, palette)
    } else {
        mesh::build(seed, triangles, palette)
    };
    ModelFiles {
        glb: glb::write(&mesh, material_for(seed, pbr), name),
        obj: obj::write(&mesh, name),
        thumbnail: thumbnail::render(&mesh, THUMBNAIL_SIDE_PX),
        triangles: mesh.triangle_count(),
    }
}

/// A GLB of the procedural object for `seed` with about `triangles` triangles (clamped
/// to 1 000..=300 000), exactly what a text-mode job without PBR writes for that seed and
/// polycount. For benches and tests only (re-exported hidden from `sandbox`).
pub fn procedural_glb(seed: u64, triangles: u32) -> Vec<u8> {
    let mesh = mesh::build(seed, triangles, &[]);
    glb::write(&mesh, Material::MATTE, job::MODEL_NAME)
}
