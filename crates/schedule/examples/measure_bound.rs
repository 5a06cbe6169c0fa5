//! Measures the worst deviation `|N_i(T) − T·p_i|` of `Carousel` (EDF, full windows and
//! Tijdeman's) and `CreditCarousel` (the literal Algorithm 3 of seed
//! 001_1ae7d23b6da2937a.txt) over random rate vectors.
//!
//! `cargo run --release -p freshet-schedule --example measure_bound [instances] [seed]`
//!
//! Families: uniform, log-uniform over 8 orders of magnitude, Zipf-like, a few dominant pages,
//! small integer rates (exact total), dyadic shares (exact shares), equal rates, and any of
//! these with 30% zeros. Every prefix `T ≤ 4n + 64` is checked (via `DiscrepancyMeter`), and
//! a few long runs follow.

use freshet_schedule::{Carousel, CreditCarousel, Discrepancy, DiscrepancyMeter, Shares, Windows};

/// SplitMix64: a tiny seeded generator, so this example needs no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..bound`.
    fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

const FAMILIES: [&str; 7] = ["uniform", "log-uniform", "zipf", "dominant", "integer", "dyadic", "equal"];

fn rates(rng: &mut SplitMix, family: usize, n: usize) -> Vec<f64> {
    let mut rates: Vec<f64> = match family {
        0 => (0..n).map(|_| rng.unit()).collect(),
        1 => (0..n).map(|_| 10f64.powf(8.0 * rng.unit() - 4.0)).collect(),
        2 => {
            let s = 0.5 + 2.0 * rng.unit();
            (1..=n).map(|k| (k as f64).powf(-s)).collect()
        }
        3 => {
            let heavy = 1 + rng.below(3);
            (0..n).map(|i| if i < heavy { n as f64 * (1.0 + rng.unit()) } else { rng.unit() }).collect()
        }
        4 => (0..n).map(|_| (1 + rng.below(10)) as f64).collect(),
        5 => (0..n).map(|_| 2f64.powi(-(rng.below(12) as i32))).collect(),
        _ => vec![1.0; n],
    };
    // Shuffle so that page index order carries no information.
    for i in (1..n).rev() {
        rates.swap(i, rng.below(i + 1));
    }
    rates
}

fn measure(shares: &Shares, pages: impl Iterator<Item = usize>, horizon: usize) -> Discrepancy {
    let mut meter = DiscrepancyMeter::new(shares);
    for page in pages.take(horizon) {
        meter.record(page);
    }
    meter.discrepancy()
}

#[derive(Default)]
struct Worst {
    ahead: f64,
    behind: f64,
    worst_at: String,
    over_tijdeman: usize,
    over_one: usize,
}

impl Worst {
    fn update(&mut self, d: Discrepancy, n_active: usize, what: &str) {
        if d.worst() > self.ahead.max(self.behind) {
            self.worst_at = what.to_owned();
        }
        self.ahead = self.ahead.max(d.ahead);
        self.behind = self.behind.max(d.behind);
        // Tijdeman: some schedule has |N_i(T) − T p_i| ≤ 1 − 1/(2n − 2) (n ≥ 2).
        if n_active >= 2 && d.worst() > 1.0 - 1.0 / (2.0 * n_active as f64 - 2.0) + 1e-12 {
            self.over_tijdeman += 1;
        }
        if d.worst() >= 1.0 {
            self.over_one += 1;
        }
    }

    fn report(&self, name: &str) {
        println!(
            "  {name:<9} worst ahead {:.15}  worst behind {:.15}  over 1-1/(2n-2): {}  >= 1: {}  (worst at {})",
            self.ahead, self.behind, self.over_tijdeman, self.over_one, self.worst_at
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let instances: usize = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let mut rng = SplitMix(seed);

    let mut edf = Worst::default();
    let mut tij = Worst::default();
    let mut credit = Worst::default();
    let mut per_family: Vec<[Worst; 3]> = FAMILIES.iter().map(|_| Default::default()).collect();
    for instance in 0..instances {
        let family = instance % FAMILIES.len();
        let n = 1 + (300f64.powf(rng.unit()) as usize).min(299);
        let mut r = rates(&mut rng, family, n);
        let zeros = rng.below(2) == 0;
        if zeros {
            for rate in &mut r {
                if rng.unit() < 0.3 {
                    *rate = 0.0;
                }
            }
            if r.iter().all(|&x| x == 0.0) {
                r[0] = 1.0;
            }
        }
        let shares = Shares::new(&r)?;
        let active = r.iter().filter(|&&x| x > 0.0).count();
        let horizon = 4 * n + 64;
        let what = format!("instance {instance}, {} n={n} zeros={zeros}", FAMILIES[family]);
        let d = measure(&shares, Carousel::from_shares(shares.clone()), horizon);
        edf.update(d, active, &what);
        per_family[family][0].update(d, active, &what);
        let tijdeman = Carousel::with_windows(shares.clone(), Windows::Tijdeman);
        let d = measure(&shares, tijdeman, horizon);
        tij.update(d, active, &what);
        per_family[family][1].update(d, active, &what);
        let d = measure(&shares, CreditCarousel::from_shares(shares.clone()), horizon);
        credit.update(d, active, &what);
        per_family[family][2].update(d, active, &what);
    }
    println!("{instances} instances, n in 1..=300, every prefix T <= 4n+64, seed {seed}");
    edf.report("EDF");
    tij.report("Tijdeman");
    credit.report("Alg. 3");
    for (family, [e, t, c]) in FAMILIES.iter().zip(&per_family) {
        println!("{family}:");
        e.report("EDF");
        t.report("Tijdeman");
        c.report("Alg. 3");
    }

    println!("long runs, 10^6 slots each (EDF full windows | Tijdeman):");
    for (family, n) in [(1, 1000), (2, 1000), (3, 100), (0, 10_000), (6, 7), (1, 3)] {
        let shares = Shares::new(&rates(&mut rng, family, n))?;
        let d = measure(&shares, Carousel::from_shares(shares.clone()), 1_000_000);
        let tijdeman = Carousel::with_windows(shares.clone(), Windows::Tijdeman);
        let t = measure(&shares, tijdeman, 1_000_000);
        println!(
            "  {} n={n}: ahead {:.12} behind {:.12} | ahead {:.12} behind {:.12} (1-1/(2n-2) = {:.12})",
            FAMILIES[family],
            d.ahead,
            d.behind,
            t.ahead,
            t.behind,
            1.0 - 1.0 / (2.0 * n as f64 - 2.0)
        );
    }
    Ok(())
}
