//! A glTF 2.0 binary (GLB) written by hand: the 12-byte header, a JSON chunk padded with
//! spaces and a BIN chunk padded with zeros. One node, one mesh, one triangle primitive
//! with POSITION (with min/max), NORMAL, COLOR_0 (linear RGB floats) and u32 indices, and
//! one metallic-roughness material.

use serde_json::json;

use super::mesh::Mesh;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const GLB_VERSION: u32 = 2;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const ARRAY_BUFFER: u32 = 34_962;
const ELEMENT_ARRAY_BUFFER: u32 = 34_963;
const FLOAT: u32 = 5_126;
const UNSIGNED_INT: u32 = 5_125;
const TRIANGLES: u32 = 4;

/// The material of the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Material {
    /// Multiplies the vertex colours.
    pub base_color: [f32; 4],
    pub metallic: f32,
    pub roughness: f32,
}

impl Material {
    /// A plain matte surface: the vertex colours as they are.
    pub(crate) const MATTE: Material = Material {
        base_color: [1.0, 1.0, 1.0, 1.0],
        metallic: 0.0,
        roughness: 1.0,
    };
}

fn push_vec3s(buffer: &mut Vec<u8>, values: &[[f32; 3]]) {
    for value in values {
        for component in value {
            buffer.extend_from_slice(&component.to_le_bytes());
        }
    }
}

/// `bytes` padded with `pad` to a multiple of four.
fn padded(mut bytes: Vec<u8>, pad: u8) -> Vec<u8> {
    while !bytes.len().is_multiple_of(4) {
        bytes.push(pad);
    }
    bytes
}

/// The GLB file of `mesh` named `name`.
pub(crate) fn write(mesh: &Mesh, material: Material, name: &str) -> Vec<u8> {
    let vertex_count = mesh.positions.len();
    let vec3_bytes = vertex_count * 12;
    let mut bin = Vec::with_capacity(vec3_bytes * 3 + mesh.indices.len() * 4);
    push_vec3s(&mut bin, &mesh.positions);
    push_vec3s(&mut bin, &mesh.normals);
    push_vec3s(&mut bin, &mesh.colors);
    for index in &mesh.indices {
        bin.extend_from_slice(&index.to_le_bytes());
    }
    let bin_length = bin.len();
    let (min, max) = mesh.bounds();
    let view = |offset: usize, length: usize, target: u32| json!({"buffer": 0, "byteOffset": offset, "byteLength": length, "target": target});
    let document = json!({
        "asset": {"version": "2.0", "generator": "Framewright sandbox"},
        "scene": 0,
        "scenes": [{"name": name, "nodes": [0]}],
        "nodes": [{"name": name, "mesh": 0}],
        "meshes": [{
            "name": name,
            "primitives": [{
                "attributes": {"POSITION": 0, "NORMAL": 1, "COLOR_0": 2},
                "indices": 3,
                "material": 0,
                "mode": TRIANGLES,
            }],
        }],
        "materials": [{
            "name": format!("{name} surface"),
            "pbrMetallicRoughness": {
                "baseColorFactor": material.base_color,
                "metallicFactor": material.metallic,
                "roughnessFactor": material.roughness,
            },
        }],
        "buffers": [{"byteLength": bin_length}],
        "bufferViews": [
            view(0, vec3_bytes, ARRAY_BUFFER),
            view(vec3_bytes, vec3_bytes, ARRAY_BUFFER),
            view(vec3_bytes * 2, vec3_bytes, ARRAY_BUFFER),
            view(vec3_bytes * 3, mesh.indices.len() * 4, ELEMENT_ARRAY_BUFFER),
        ],
        "accessors": [
            {"bufferView": 0, "componentType": FLOAT, "count": vertex_count, "type": "VEC3",
             "min": min, "max": max},
            {"bufferView": 1, "componentType": FLOAT, "count": vertex_count, "type": "VEC3"},
            {"bufferView": 2, "componentType": FLOAT, "count": vertex_count, "type": "VEC3"},
            {"bufferView": 3, "componentType": UNSIGNED_INT, "count": mesh.indices.len(),
             "type": "SCALAR"},
        ],
    });
    let json_chunk = padded(document.to_string().into_bytes(), b' ');
    let bin_chunk = padded(bin, 0);
    let total = 12 + 8 + json_chunk.len() + 8 + bin_chunk.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&GLB_VERSION.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json_chunk);
    out.extend_from_slice(&(bin_chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(&bin_chunk);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::model3d::mesh::build;

    #[test]
    fn gltf_reads_the_file_back() {
        let mesh = build(3, 5_000, &[]);
        let bytes = write(&mesh, Material::MATTE, "Vase");
        assert_eq!(bytes.len() % 4, 0);
        let (document, buffers, _images) = gltf::import_slice(&bytes).expect("valid glb");
        let primitive = document
            .meshes()
            .next()
            .and_then(|m| m.primitives().next())
            .expect("primitive");
        let reader = primitive.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
        let indices: Vec<u32> = reader.read_indices().expect("indices").into_u32().collect();
        assert_eq!(indices.len(), mesh.indices.len());
        assert_eq!(
            reader.read_positions().expect("positions").count(),
            mesh.positions.len()
        );
        assert_eq!(
            reader.read_normals().expect("normals").count(),
            mesh.normals.len()
        );
        assert!(reader.read_colors(0).is_some());
    }
}
