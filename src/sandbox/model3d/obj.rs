//! Wavefront OBJ text: `v x y z r g b` (sRGB vertex colours, the common extension),
//! `vn`, and `f a//a b//b c//c` faces (1-based).

use std::fmt::Write as _;

use super::mesh::{Mesh, linear_to_srgb};

/// The OBJ text of `mesh`, headed by a comment naming it.
pub(crate) fn write(mesh: &Mesh, name: &str) -> String {
    let mut out = String::with_capacity(mesh.positions.len() * 90 + mesh.indices.len() * 12);
    let _ = writeln!(out, "# Framewright sandbox procedural model: {name}");
    let _ = writeln!(
        out,
        "# {} vertices, {} triangles",
        mesh.positions.len(),
        mesh.triangle_count()
    );
    let _ = writeln!(out, "o {}", name.replace(char::is_whitespace, "_"));
    for (p, c) in mesh.positions.iter().zip(&mesh.colors) {
        let _ = writeln!(
            out,
            "v {:.5} {:.5} {:.5} {:.4} {:.4} {:.4}",
            p[0],
            p[1],
            p[2],
            linear_to_srgb(c[0]),
            linear_to_srgb(c[1]),
            linear_to_srgb(c[2])
        );
    }
    for n in &mesh.normals {
        let _ = writeln!(out, "vn {:.5} {:.5} {:.5}", n[0], n[1], n[2]);
    }
    for triangle in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [triangle[0] + 1, triangle[1] + 1, triangle[2] + 1];
        let _ = writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}");
    }
    out
}
