//! World frames and the geodetic conversion.
//!
//! `Planet`: a planet-centred, planet-fixed Cartesian frame (metres): +X through latitude 0 /
//! longitude 0, +Z through the north pole, +Y completes a right-handed frame (latitude 0, longitude
//! 90° E). The planet is a sphere of `radius_m`; altitude is height above that sphere.
//! `Flat`: a flat world, right-handed, +X east, +Y north, +Z up (metres; z = 0 is the ground).

#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(tag = "kind", rename_all = "snake_case"))]
pub enum WorldKind {
    Planet { radius_m: f64 },
    Flat,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geodetic {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
}

/// World position (metres, planet frame) to latitude/longitude/altitude on a sphere of `radius_m`.
pub fn world_to_geodetic(p: [f64; 3], radius_m: f64) -> Geodetic {
    let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    if r == 0.0 {
        return Geodetic { lat_deg: 0.0, lon_deg: 0.0, alt_m: -radius_m };
    }
    Geodetic {
        lat_deg: (p[2] / r).clamp(-1.0, 1.0).asin().to_degrees(),
        lon_deg: p[1].atan2(p[0]).to_degrees(),
        alt_m: r - radius_m,
    }
}

/// Inverse of [`world_to_geodetic`].
pub fn geodetic_to_world(g: Geodetic, radius_m: f64) -> [f64; 3] {
    let r = radius_m + g.alt_m;
    let (lat, lon) = (g.lat_deg.to_radians(), g.lon_deg.to_radians());
    [r * lat.cos() * lon.cos(), r * lat.cos() * lon.sin(), r * lat.sin()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn altitude_uses_the_given_radius() {
        // 1,000 m above a 600 km planet (a small moon), on the equator at 90° E.
        let g = world_to_geodetic([0.0, 601_000.0, 0.0], 600_000.0);
        assert!((g.alt_m - 1000.0).abs() < 1e-6);
        assert!((g.lon_deg - 90.0).abs() < 1e-9);
        // The same point read as Earth would be far below ground: the radius is load-bearing.
        let earth = world_to_geodetic([0.0, 601_000.0, 0.0], 6_371_000.0);
        assert!(earth.alt_m < -5.0e6);
    }

    #[test]
    fn round_trip() {
        let g = Geodetic { lat_deg: 47.5, lon_deg: -122.25, alt_m: 3048.0 };
        let back = world_to_geodetic(geodetic_to_world(g, 6_371_000.0), 6_371_000.0);
        assert!((back.lat_deg - g.lat_deg).abs() < 1e-9);
        assert!((back.lon_deg - g.lon_deg).abs() < 1e-9);
        assert!((back.alt_m - g.alt_m).abs() < 1e-6);
    }
}
