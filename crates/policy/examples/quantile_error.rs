//! The accuracy of `G⁻¹` (`special::erlang2_quantile`) by range of `c`: Lambert `W₋₁` and the
//! 8-term branch-point series against bisection on the series-accurate `G`. Run with
//! `cargo run --release -p freshet-policy --example quantile_error`.
#![allow(missing_docs, clippy::unwrap_used)]
use freshet_policy::special::{erlang2_cdf, erlang2_quantile};
fn twin(c: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 50.0_f64);
    for _ in 0..3000 {
        let m = 0.5 * (lo + hi);
        if m <= lo || m >= hi {
            break;
        }
        if erlang2_cdf(m) < c { lo = m } else { hi = m }
    }
    0.5 * (lo + hi)
}
fn main() {
    for decade in [1e-5, 1e-4, 1e-3, 1e-2, 1e-1] {
        let mut worst_raw: f64 = 0.0;
        let mut worst_series: f64 = 0.0;
        for i in 0..400 {
            let c = decade * 10f64.powf(i as f64 / 400.0);
            let raw = -1.0 - lambert_w::lambert_wm1(-(1.0 - c) / std::f64::consts::E);
            let t = twin(c);
            worst_raw = worst_raw.max((raw / t - 1.0).abs());
            let p = (2.0 * c).sqrt();
            let co = [
                1.0,
                1.0 / 3.0,
                11.0 / 72.0,
                43.0 / 540.0,
                769.0 / 17280.0,
                221.0 / 8505.0,
                680863.0 / 43545600.0,
                1963.0 / 204120.0,
            ];
            let mut s = 0.0;
            for k in co.iter().rev() {
                s = s * p + k;
            }
            worst_series = worst_series.max((s * p / t - 1.0).abs());
            assert!((erlang2_quantile(c) / t - 1.0).abs() < 2e-13);
        }
        println!(
            "c in [{decade:e}, {:e}): lambert rel err {worst_raw:.2e}, 8-term series {worst_series:.2e}",
            decade * 10.0
        );
    }
}
