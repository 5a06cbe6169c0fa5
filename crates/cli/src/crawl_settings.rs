//! The settings of `freshet crawl`, from three places: the crawl's own `DIR/crawl.toml` (what
//! an earlier run of this crawl was given, read by `--resume`), a `--config FILE`, and the
//! command line, each overriding the one before. Every key is documented in
//! `docs/crawl-config.md` (a test checks that every key is there, and that the example there
//! parses); the command-line flags have the keys' names.
//!
//! A value is checked in the layer that gave it, so an error names the file and key (or the
//! flag) that holds the bad value. The defaults are `freshet_crawl::CrawlConfig::new`'s: a key
//! not given anywhere leaves the library's default.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use freshet_crawl::{CrawlConfig, Focus, Importance, Revisit};
use freshet_fetch::ContentTypes;
use freshet_url::Scope;

/// How far links are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ScopeArg {
    /// The seed's host only.
    Host,
    /// The seed's registered domain (public suffix list).
    Domain,
    /// Anywhere.
    Any,
}

/// How fetched pages are revisited (`freshet_crawl::Revisit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RevisitArg {
    /// Learned change rates and importance, the threshold scheduler (seed 003).
    Freshet,
    /// The same interval for every page (round robin).
    Uniform,
    /// Apache Nutch's adaptive intervals (×0.8 on change, ×1.2 without).
    Nutch,
    /// No revisits: one pass.
    Once,
}

/// Where page weights come from (`freshet_crawl::Importance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ImportanceArg {
    /// OPIC, learned online from the links followed (Abiteboul et al.; seed 002).
    Opic,
    /// Distinct in-links from fetched pages.
    InDegree,
}

/// Every setting of a crawl, each optional (not given here). Durations are seconds.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct CrawlSettings {
    // What to crawl.
    pub(crate) seeds: Option<Vec<String>>,
    pub(crate) seeds_file: Option<PathBuf>,
    pub(crate) scope: Option<ScopeArg>,
    pub(crate) max_depth: Option<u32>,
    pub(crate) include: Option<Vec<String>>,
    pub(crate) exclude: Option<Vec<String>>,
    pub(crate) host_quota: Option<u64>,
    pub(crate) max_hosts_per_domain: Option<u32>,
    pub(crate) content_types: Option<Vec<String>>,
    pub(crate) sitemaps: Option<bool>,
    pub(crate) revisit_canonical_aliases: Option<bool>,
    pub(crate) max_sitemap_files: Option<u32>,
    pub(crate) max_sitemap_urls: Option<u64>,
    pub(crate) sitemap_revisit: Option<f64>,
    // When to stop (this run).
    pub(crate) max_pages: Option<u64>,
    pub(crate) duration: Option<f64>,
    // Revisits.
    pub(crate) revisit: Option<RevisitArg>,
    pub(crate) rate: Option<f64>,
    pub(crate) importance: Option<ImportanceArg>,
    pub(crate) weights: Option<PathBuf>,
    pub(crate) focus: Option<Vec<String>>,
    pub(crate) focus_estimator: Option<String>,
    pub(crate) focus_bandit: Option<String>,
    pub(crate) focus_epsilon: Option<f64>,
    pub(crate) change_interval: Option<f64>,
    pub(crate) prior_fetches: Option<f64>,
    pub(crate) max_failures: Option<u32>,
    pub(crate) nutch_min_interval: Option<f64>,
    pub(crate) nutch_max_interval: Option<f64>,
    // Politeness.
    pub(crate) delay: Option<f64>,
    pub(crate) max_in_flight: Option<usize>,
    pub(crate) max_in_flight_per_ip: Option<usize>,
    pub(crate) max_in_flight_per_host: Option<u32>,
    pub(crate) back_off: Option<f64>,
    pub(crate) max_back_offs: Option<u32>,
    pub(crate) max_retry_after: Option<f64>,
    pub(crate) robots_ttl: Option<f64>,
    pub(crate) robots_retry: Option<f64>,
    pub(crate) robots_scan_rate: Option<u64>,
    // Fetching.
    pub(crate) user_agent: Option<String>,
    pub(crate) connect_timeout: Option<f64>,
    pub(crate) first_byte_timeout: Option<f64>,
    pub(crate) keep_alive: Option<f64>,
    pub(crate) timeout: Option<f64>,
    pub(crate) max_body_bytes: Option<u64>,
    pub(crate) max_redirects: Option<usize>,
    pub(crate) allow_private: Option<bool>,
    pub(crate) resolve: Option<Vec<String>>,
    // Output and operation.
    pub(crate) store_cache_bytes: Option<u64>,
    pub(crate) store: Option<String>,
    pub(crate) store_prefix: Option<String>,
    pub(crate) store_require_fsync: Option<bool>,
    pub(crate) shard: Option<String>,
    pub(crate) warc_file_bytes: Option<u64>,
    pub(crate) warc_gzip_level: Option<u32>,
    pub(crate) duplicate_index_entries: Option<u64>,
    pub(crate) near_duplicate_index_entries: Option<u64>,
    pub(crate) main_text: Option<bool>,
    pub(crate) worker_threads: Option<usize>,
    pub(crate) listen: Option<std::net::SocketAddr>,
}

/// Where a layer of settings came from, to name it in errors.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// The command line: keys are named as flags.
    CommandLine,
    /// A TOML file (`--config`, or the crawl's own `crawl.toml`).
    File(PathBuf),
}

impl Origin {
    /// How `key` is named to the user.
    fn name(&self, key: &str) -> String {
        match self {
            Self::CommandLine => format!("--{key}"),
            Self::File(path) => format!("{}: {key}", path.display()),
        }
    }
}

/// `CrawlSettings` field by field: `over`'s value where it has one, else `base`'s.
macro_rules! overlay {
    ($base:ident, $over:ident; $($field:ident),* $(,)?) => {
        CrawlSettings { $($field: $over.$field.or($base.$field)),* }
    };
}

impl CrawlSettings {
    /// Reads a TOML file; unknown keys and wrong types are errors naming the file, line and key.
    /// Relative paths in it (`seeds-file`, `weights`) are relative to the file's folder.
    pub(crate) fn read(file: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let mut settings: Self = toml::from_str(&text)
            .with_context(|| format!("{}: not a valid crawl configuration", file.display()))?;
        let folder = file.parent().unwrap_or_else(|| Path::new("."));
        for path in [&mut settings.seeds_file, &mut settings.weights].into_iter().flatten() {
            if path.is_relative() {
                let joined = folder.join(&*path);
                *path = std::path::absolute(&joined).unwrap_or(joined);
            }
        }
        settings.check(&Origin::File(file.to_owned()))?;
        Ok(settings)
    }

    /// `self` with `over`'s settings on top; seeds are added, not replaced.
    pub(crate) fn overlay(self, over: Self) -> Self {
        let seeds = match (self.seeds.clone(), over.seeds.clone()) {
            (Some(mut base), Some(more)) => {
                base.extend(more);
                Some(base)
            }
            (base, more) => more.or(base),
        };
        let merged = overlay!(self, over;
            seeds, seeds_file, scope, max_depth, include, exclude, host_quota, max_hosts_per_domain, content_types,
            sitemaps, revisit_canonical_aliases, max_sitemap_files, max_sitemap_urls, sitemap_revisit, max_pages, duration, revisit, rate,
            importance, weights, focus, focus_estimator, focus_bandit, focus_epsilon, change_interval, prior_fetches, max_failures, nutch_min_interval,
            nutch_max_interval, delay, max_in_flight, max_in_flight_per_ip, max_in_flight_per_host,
            back_off, max_back_offs, max_retry_after, robots_ttl, robots_retry, robots_scan_rate, user_agent, connect_timeout,
            first_byte_timeout, keep_alive, timeout, max_body_bytes, max_redirects, allow_private, resolve,
            store_cache_bytes, store, store_prefix, store_require_fsync, shard, warc_file_bytes, warc_gzip_level, duplicate_index_entries,
            near_duplicate_index_entries, main_text, worker_threads, listen,
        );
        Self { seeds, ..merged }
    }

    /// What a crawl keeps in `DIR/crawl.toml` for `--resume`: everything but what belongs to one
    /// run (its seeds, which the store keeps anyway; its stop conditions; its listen address;
    /// its threads, the machine's).
    pub(crate) fn kept_for_resume(&self) -> Self {
        Self {
            seeds: None,
            seeds_file: None,
            max_pages: None,
            duration: None,
            listen: None,
            worker_threads: None,
            ..self.clone()
        }
    }

    /// Writes `file` (through a temporary file and a rename: a crash leaves the old one whole).
    pub(crate) fn write(&self, file: &Path) -> anyhow::Result<()> {
        let text = format!(
            "# The settings this crawl was given (freshet crawl --resume reads them; flags and\n\
             # --config override them). Keys: docs/crawl-config.md.\n{}",
            toml::to_string(self).context("writing the crawl's settings")?
        );
        let temporary = file.with_extension("toml.tmp");
        std::fs::write(&temporary, text).with_context(|| format!("writing {}", temporary.display()))?;
        std::fs::rename(&temporary, file).with_context(|| format!("writing {}", file.display()))
    }

    /// Checks every value given, naming the key and where it came from.
    pub(crate) fn check(&self, origin: &Origin) -> anyhow::Result<()> {
        let seconds = |key: &str, value: Option<f64>, zero_ok: bool| -> anyhow::Result<()> {
            match value {
                Some(value) if !(value.is_finite() && (value > 0.0 || (zero_ok && value == 0.0))) => {
                    let expected = if zero_ok { "0 or more" } else { "a positive number" };
                    bail!("{} {value}: expected {expected} (seconds)", origin.name(key))
                }
                _ => Ok(()),
            }
        };
        seconds("duration", self.duration, false)?;
        seconds("change-interval", self.change_interval, false)?;
        seconds("nutch-min-interval", self.nutch_min_interval, false)?;
        seconds("nutch-max-interval", self.nutch_max_interval, false)?;
        seconds("delay", self.delay, true)?;
        seconds("back-off", self.back_off, true)?;
        seconds("max-retry-after", self.max_retry_after, false)?;
        seconds("robots-ttl", self.robots_ttl, false)?;
        seconds("sitemap-revisit", self.sitemap_revisit, true)?;
        seconds("robots-retry", self.robots_retry, false)?;
        seconds("connect-timeout", self.connect_timeout, false)?;
        seconds("first-byte-timeout", self.first_byte_timeout, false)?;
        seconds("keep-alive", self.keep_alive, true)?;
        seconds("timeout", self.timeout, false)?;
        let positive = |key: &str, value: Option<f64>, unit: &str| -> anyhow::Result<()> {
            match value {
                Some(value) if !(value.is_finite() && value > 0.0) => {
                    bail!("{} {value}: expected a positive number ({unit})", origin.name(key))
                }
                _ => Ok(()),
            }
        };
        positive("rate", self.rate, "page requests per second")?;
        positive("prior-fetches", self.prior_fetches, "fetch intervals")?;
        let at_least_one = [
            ("max-pages", self.max_pages),
            ("host-quota", self.host_quota),
            ("max-sitemap-urls", self.max_sitemap_urls),
            ("max-body-bytes", self.max_body_bytes),
            ("warc-file-bytes", self.warc_file_bytes),
            ("max-in-flight", self.max_in_flight.map(|n| n as u64)),
            ("max-failures", self.max_failures.map(u64::from)),
            ("max-in-flight-per-host", self.max_in_flight_per_host.map(u64::from)),
            ("worker-threads", self.worker_threads.map(|n| n as u64)),
        ];
        for (key, value) in at_least_one {
            if value == Some(0) {
                bail!("{} 0: expected at least 1", origin.name(key));
            }
        }
        if let Some(rate) = self.robots_scan_rate
            && rate < freshet_crawl::MIN_ROBOTS_SCAN_RATE
        {
            bail!(
                "{} {rate}: expected at least {} (octets a second)",
                origin.name("robots-scan-rate"),
                freshet_crawl::MIN_ROBOTS_SCAN_RATE
            );
        }
        if let Some(redirects) = self.max_redirects
            && redirects > freshet_crawl::MAX_REDIRECTS
        {
            bail!(
                "{} {redirects}: expected at most {} (what the frontier keeps of a chain)",
                origin.name("max-redirects"),
                freshet_crawl::MAX_REDIRECTS
            );
        }
        if let Some(store) = &self.store
            && store != "redb"
            && !store.starts_with("redis://")
        {
            bail!("{} {store:?}: expected redb or a redis://HOST:PORT/DB URL", origin.name("store"));
        }
        if let Some(prefix) = &self.store_prefix
            && (prefix.is_empty() || prefix.contains(['{', '}']) || prefix.chars().any(char::is_whitespace))
        {
            bail!(
                "{} {prefix:?}: expected a non-empty name without braces or spaces",
                origin.name("store-prefix")
            );
        }
        if let Some(shard) = &self.shard {
            let plan = match freshet_crawl::ShardPlan::parse(shard) {
                Ok(plan) => plan,
                Err(error) => bail!("{} {shard:?}: {error}", origin.name("shard")),
            };
            if plan.count() > 1 && !self.store.as_ref().is_some_and(|store| store.starts_with("redis://")) {
                bail!(
                    "{} {shard:?}: a sharded crawl needs a Redis store (store redis://HOST:PORT/DB), through which its shards hand URLs over",
                    origin.name("shard")
                );
            }
        }
        if let Some(bytes) = self.store_cache_bytes
            && bytes < freshet_crawl::MIN_STORE_CACHE_BYTES as u64
        {
            bail!(
                "{} {bytes}: expected at least {} (bytes)",
                origin.name("store-cache-bytes"),
                freshet_crawl::MIN_STORE_CACHE_BYTES
            );
        }
        if let Some(level) = self.warc_gzip_level
            && level > 9
        {
            bail!("{} {level}: expected a gzip level from 0 to 9", origin.name("warc-gzip-level"));
        }
        if let (Some(min), Some(max)) = (self.nutch_min_interval, self.nutch_max_interval)
            && min > max
        {
            bail!("{} {max}: less than nutch-min-interval {min}", origin.name("nutch-max-interval"));
        }
        for (key, patterns) in [("include", &self.include), ("exclude", &self.exclude)] {
            for pattern in patterns.iter().flatten() {
                regex::Regex::new(pattern)
                    .with_context(|| format!("{} {pattern:?}: not a regular expression", origin.name(key)))?;
            }
        }
        if let Some(types) = &self.content_types {
            ContentTypes::parse(types).with_context(|| origin.name("content-types"))?;
        }
        for given in self.resolve.iter().flatten() {
            freshet_fetch::parse_resolve(given).with_context(|| origin.name("resolve"))?;
        }
        if let Some(agent) = &self.user_agent
            && freshet_robots::product_token(agent).is_empty()
        {
            bail!(
                "{} {agent:?}: expected a user agent starting with a product token ([a-zA-Z_-]+)",
                origin.name("user-agent")
            );
        }
        Ok(())
    }

    /// The crawl's configuration: these settings over `CrawlConfig::new`'s defaults. The seeds
    /// and weights files are read here (their errors name file and line).
    pub(crate) fn to_config(&self, data: &Path, resume: bool) -> anyhow::Result<CrawlConfig> {
        let mut config = CrawlConfig::new(data);
        config.resume = resume;
        for seed in self.seeds.iter().flatten() {
            config.seeds.push(parse_seed(seed).with_context(|| format!("seed {seed:?}"))?);
        }
        if let Some(file) = &self.seeds_file {
            config.seeds.extend(read_seeds(file)?);
        }
        let seconds = |value: f64| Duration::from_secs_f64(value);
        config.scope = match self.scope.unwrap_or(ScopeArg::Host) {
            ScopeArg::Host => Scope::Host,
            ScopeArg::Domain => Scope::Domain,
            ScopeArg::Any => Scope::Any,
        };
        // Not given: the crawler's default (freshet_crawl::DEFAULT_MAX_DEPTH), never "no limit".
        if let Some(depth) = self.max_depth {
            config.max_depth = Some(depth);
        }
        let compile = |patterns: &Option<Vec<String>>| -> anyhow::Result<Vec<regex::Regex>> {
            Ok(patterns
                .iter()
                .flatten()
                .map(|pattern| regex::Regex::new(pattern))
                .collect::<Result<_, _>>()?)
        };
        config.include = compile(&self.include)?;
        config.exclude = compile(&self.exclude)?;
        config.host_quota = self.host_quota;
        config.max_hosts_per_domain = self.max_hosts_per_domain.unwrap_or(config.max_hosts_per_domain);
        if let Some(types) = &self.content_types {
            config.fetch.content_types = ContentTypes::parse(types)?;
        }
        config.sitemaps = self.sitemaps.unwrap_or(config.sitemaps);
        config.revisit_canonical_aliases =
            self.revisit_canonical_aliases.unwrap_or(config.revisit_canonical_aliases);
        config.max_sitemap_files = self.max_sitemap_files.unwrap_or(config.max_sitemap_files);
        config.max_sitemap_urls = self.max_sitemap_urls.unwrap_or(config.max_sitemap_urls);
        // 0: once per run.
        if let Some(interval) = self.sitemap_revisit {
            config.sitemap_revisit = (interval > 0.0).then(|| seconds(interval));
        }
        config.max_pages = self.max_pages;
        config.duration = self.duration.map(seconds);
        config.revisit = match self.revisit.unwrap_or(RevisitArg::Freshet) {
            RevisitArg::Freshet => Revisit::Freshet,
            RevisitArg::Uniform => Revisit::Uniform,
            RevisitArg::Nutch => Revisit::Nutch,
            RevisitArg::Once => Revisit::Once,
        };
        config.rate = self.rate.unwrap_or(config.rate);
        config.importance = match (&self.weights, self.importance.unwrap_or(ImportanceArg::Opic)) {
            (Some(file), _) => Importance::Given(Arc::new(read_weights(file)?)),
            (None, ImportanceArg::Opic) => Importance::Opic,
            (None, ImportanceArg::InDegree) => Importance::InDegree,
        };
        config.focus = match &self.focus {
            Some(words) => Some(self.focus_config(words)?),
            None if self.focus_estimator.is_some()
                || self.focus_bandit.is_some()
                || self.focus_epsilon.is_some() =>
            {
                bail!(
                    "focus-estimator, focus-bandit or focus-epsilon is set but focus is not: name the topic's words with focus"
                )
            }
            None => None,
        };
        if let Some(interval) = self.change_interval {
            config.change_rate_prior = 1.0 / interval;
        }
        config.prior_fetches = self.prior_fetches.unwrap_or(config.prior_fetches);
        config.max_failures = self.max_failures.unwrap_or(config.max_failures);
        let (nutch_min, nutch_max) = config.nutch_interval_bounds;
        config.nutch_interval_bounds =
            (self.nutch_min_interval.unwrap_or(nutch_min), self.nutch_max_interval.unwrap_or(nutch_max));
        config.delay = self.delay.map_or(config.delay, seconds);
        config.max_in_flight = self.max_in_flight.unwrap_or(config.max_in_flight);
        if let Some(limit) = self.max_in_flight_per_ip {
            config.fetch.max_in_flight_per_ip = (limit > 0).then_some(limit);
        }
        config.default_back_off = self.back_off.map_or(config.default_back_off, seconds);
        config.max_back_offs = self.max_back_offs.unwrap_or(config.max_back_offs);
        config.max_retry_after = self.max_retry_after.map_or(config.max_retry_after, seconds);
        config.robots_cache.ttl = self.robots_ttl.unwrap_or(config.robots_cache.ttl);
        config.robots_cache.retry = self.robots_retry.unwrap_or(config.robots_cache.retry);
        config.robots_scan_rate = self.robots_scan_rate.unwrap_or(config.robots_scan_rate);
        if let Some(agent) = &self.user_agent {
            config.fetch.user_agent.clone_from(agent);
        }
        let fetch = &mut config.fetch;
        fetch.connect_timeout = self.connect_timeout.map_or(fetch.connect_timeout, seconds);
        fetch.first_byte_timeout = self.first_byte_timeout.map_or(fetch.first_byte_timeout, seconds);
        fetch.idle_timeout = self.keep_alive.map_or(fetch.idle_timeout, seconds);
        fetch.total_timeout = self.timeout.map_or(fetch.total_timeout, seconds);
        fetch.max_body_bytes = self.max_body_bytes.unwrap_or(fetch.max_body_bytes);
        fetch.max_redirects = self.max_redirects.unwrap_or(fetch.max_redirects);
        fetch.allow_private = self.allow_private.unwrap_or(false);
        for given in self.resolve.iter().flatten() {
            fetch.resolve.push(freshet_fetch::parse_resolve(given)?);
        }
        if let Some(url) = self.store.as_ref().filter(|store| store.starts_with("redis://")) {
            let mut options = freshet_crawl::RedisOptions::new(url.clone());
            if let Some(prefix) = &self.store_prefix {
                options.prefix.clone_from(prefix);
            }
            options.require_fsync = self.store_require_fsync.unwrap_or(options.require_fsync);
            config.store = freshet_crawl::StoreEngine::Redis(options);
        }
        // One shard of one is the whole crawl: not sharded, the prefix as given.
        if let Some(shard) = &self.shard {
            config.shard = Some(freshet_crawl::ShardPlan::parse(shard)?).filter(|plan| plan.count() > 1);
        }
        if let Some(bytes) = self.store_cache_bytes {
            // Past the address space: as much as redb would ever keep.
            config.store_cache_bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        }
        config.warc_max_file_bytes = self.warc_file_bytes.unwrap_or(config.warc_max_file_bytes);
        config.warc_gzip_level = self.warc_gzip_level.unwrap_or(config.warc_gzip_level);
        if let Some(entries) = self.duplicate_index_entries {
            // Past the address space: as many as memory would hold.
            config.duplicate_index_entries = usize::try_from(entries).unwrap_or(usize::MAX);
        }
        if let Some(entries) = self.near_duplicate_index_entries {
            config.near_duplicate_index_entries = usize::try_from(entries).unwrap_or(usize::MAX);
        }
        config.main_text = self.main_text.unwrap_or(config.main_text);
        config.max_in_flight_per_host = self.max_in_flight_per_host.unwrap_or(config.max_in_flight_per_host);
        config.validate()?;
        Ok(config)
    }
}

fn parse_seed(text: &str) -> anyhow::Result<freshet_url::Url> {
    Ok(freshet_url::canonicalize(text.trim())?)
}

/// Seeds from `file`, one URL per line (blank lines and `#` comments skipped); a bad one is
/// named by file and line.
fn read_seeds(file: &Path) -> anyhow::Result<Vec<freshet_url::Url>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading seeds-file {}", file.display()))?;
    let mut seeds = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        seeds.push(parse_seed(line).with_context(|| format!("{}:{}", file.display(), index + 1))?);
    }
    Ok(seeds)
}

/// One row of the weights file.
impl CrawlSettings {
    /// A focused crawl's settings from `focus` and the `focus-*` keys.
    fn focus_config(&self, words: &[String]) -> anyhow::Result<Focus> {
        use freshet_focus::{Bandit, Estimator};
        let names = self.focus_estimator.as_deref().unwrap_or("fl_e");
        let arms = names
            .split(',')
            .map(|name| {
                let name = name.trim();
                Estimator::from_name(name).ok_or_else(|| {
                    anyhow::anyhow!(
                        "focus-estimator {name:?}: expected one of bfs, fl_deg, fl_n, fl_e, fl_ne, lr_fl"
                    )
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let epsilon = self.focus_epsilon.unwrap_or(0.1);
        let policy = match self.focus_bandit.as_deref() {
            None if arms.len() > 1 => {
                bail!(
                    "focus-estimator {names:?} names several estimators: choose among them with focus-bandit"
                )
            }
            None => return Ok(Focus::new(words, arms[0])?),
            Some("epsilon-greedy") => Bandit::EpsilonGreedy { epsilon },
            Some("epsilon-first") => Bandit::EpsilonFirst { epsilon },
            Some("var") => Bandit::VariableReset { epsilon, reset: 100 },
            Some(other) => bail!("focus-bandit {other:?}: expected epsilon-greedy, epsilon-first or var"),
        };
        let horizon = self.max_pages.map_or(10_000, |pages| usize::try_from(pages).unwrap_or(usize::MAX));
        Ok(Focus::with_bandit(words, arms, policy, horizon)?)
    }
}

#[derive(Debug, serde::Deserialize)]
struct WeightRow {
    url: String,
    weight: f64,
}

/// The weights file: canonical URL → weight; a bad row is named by file and line.
fn read_weights(file: &Path) -> anyhow::Result<std::collections::HashMap<String, f64>> {
    let mut reader =
        csv::Reader::from_path(file).with_context(|| format!("reading weights {}", file.display()))?;
    let mut weights = std::collections::HashMap::new();
    for row in reader.deserialize::<WeightRow>() {
        let row = row.with_context(|| format!("weights {}", file.display()))?;
        let url =
            parse_seed(&row.url).with_context(|| format!("weights {}: url {:?}", file.display(), row.url))?;
        if !(row.weight.is_finite() && row.weight > 0.0) {
            bail!(
                "weights {}: weight {} of {}: expected a positive number",
                file.display(),
                row.weight,
                row.url
            );
        }
        weights.insert(url.to_string(), row.weight);
    }
    Ok(weights)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every key set: a struct literal, so a key added to `CrawlSettings` without a value here
    /// does not compile, and the documentation test below then checks the new key's docs.
    fn every_key() -> CrawlSettings {
        CrawlSettings {
            seeds: Some(vec!["https://example.com/".into()]),
            seeds_file: Some("seeds.txt".into()),
            scope: Some(ScopeArg::Domain),
            max_depth: Some(5),
            include: Some(vec!["/news/".into()]),
            exclude: Some(vec!["\\?print=".into()]),
            host_quota: Some(10_000),
            max_hosts_per_domain: Some(1_000),
            content_types: Some(vec!["text/html".into()]),
            sitemaps: Some(true),
            revisit_canonical_aliases: Some(false),
            max_sitemap_files: Some(50),
            max_sitemap_urls: Some(50_000),
            sitemap_revisit: Some(86_400.0),
            max_pages: Some(1_000),
            duration: Some(3_600.0),
            revisit: Some(RevisitArg::Freshet),
            rate: Some(10.0),
            importance: Some(ImportanceArg::Opic),
            weights: Some("weights.csv".into()),
            focus: Some(vec!["bhutan".into(), "thimphu".into()]),
            focus_estimator: Some("fl_n,fl_e,lr_fl".into()),
            focus_bandit: Some("epsilon-greedy".into()),
            focus_epsilon: Some(0.1),
            change_interval: Some(86_400.0),
            prior_fetches: Some(20.0),
            max_failures: Some(3),
            nutch_min_interval: Some(60.0),
            nutch_max_interval: Some(31_536_000.0),
            delay: Some(1.0),
            max_in_flight: Some(64),
            max_in_flight_per_ip: Some(8),
            max_in_flight_per_host: Some(1),
            back_off: Some(60.0),
            max_back_offs: Some(5),
            max_retry_after: Some(3_600.0),
            robots_ttl: Some(86_400.0),
            robots_retry: Some(3_600.0),
            robots_scan_rate: Some(4 << 20),
            user_agent: Some("freshet/0.1 (+https://example.com/bot)".into()),
            connect_timeout: Some(10.0),
            first_byte_timeout: Some(30.0),
            keep_alive: Some(5.0),
            timeout: Some(120.0),
            max_body_bytes: Some(10 << 20),
            max_redirects: Some(10),
            allow_private: Some(false),
            resolve: Some(vec!["example.com=93.184.215.14".into()]),
            store_cache_bytes: Some(1 << 30),
            store: Some("redis://127.0.0.1:6379/0".into()),
            store_prefix: Some("crawl-1".into()),
            store_require_fsync: Some(true),
            shard: Some("0/1".into()),
            warc_file_bytes: Some(1 << 30),
            warc_gzip_level: Some(6),
            duplicate_index_entries: Some(1 << 22),
            near_duplicate_index_entries: Some(1 << 22),
            main_text: Some(true),
            worker_threads: Some(2),
            listen: Some("127.0.0.1:9100".parse().unwrap()),
        }
    }

    fn keys(settings: &CrawlSettings) -> Vec<String> {
        let value = toml::Value::try_from(settings).unwrap();
        value.as_table().unwrap().keys().cloned().collect()
    }

    const DOCS: &str = include_str!("../../../docs/crawl-config.md");

    #[test]
    fn every_key_is_documented_and_the_documented_example_sets_every_key() {
        let all = keys(&every_key());
        assert_eq!(all.len(), 60);
        for key in &all {
            assert!(DOCS.contains(&format!("| `{key}` |")), "docs/crawl-config.md does not document `{key}`");
        }
        let example = DOCS.split("```toml\n").nth(1).unwrap().split("```").next().unwrap();
        let parsed: CrawlSettings = toml::from_str(example).unwrap();
        parsed.check(&Origin::File("docs/crawl-config.md".into())).unwrap();
        let mut documented = keys(&parsed);
        documented.sort();
        let mut expected = all.clone();
        expected.sort();
        assert_eq!(documented, expected, "the example in docs/crawl-config.md must set every key");
    }

    #[test]
    fn later_layers_win_key_by_key_and_seeds_add_up() {
        let file = CrawlSettings {
            seeds: Some(vec!["https://a.test/".into()]),
            delay: Some(2.0),
            scope: Some(ScopeArg::Domain),
            ..CrawlSettings::default()
        };
        let flags = CrawlSettings {
            seeds: Some(vec!["https://b.test/".into()]),
            delay: Some(0.5),
            ..CrawlSettings::default()
        };
        let merged = file.overlay(flags);
        assert_eq!(merged.delay, Some(0.5));
        assert_eq!(merged.scope, Some(ScopeArg::Domain));
        assert_eq!(merged.seeds.as_deref().unwrap(), ["https://a.test/", "https://b.test/"]);
        let config = merged.to_config(Path::new("data"), false).unwrap();
        assert_eq!(config.delay, Duration::from_millis(500));
        assert_eq!(config.scope, Scope::Domain);
        // Not given anywhere: the library's default.
        assert_eq!(config.rate, CrawlConfig::new("x").rate);
    }

    #[test]
    fn the_kept_settings_round_trip_without_the_runs_own() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("crawl.toml");
        let kept = every_key().kept_for_resume();
        kept.write(&file).unwrap();
        let read = CrawlSettings::read(&file).unwrap();
        assert_eq!(read.seeds, None);
        assert_eq!(read.listen, None);
        assert_eq!(read.max_pages, None);
        assert_eq!(read.worker_threads, None);
        // Relative paths were kept relative and come back relative to the file's folder.
        assert_eq!(read.weights, Some(folder.path().join("weights.csv")));
        assert_eq!(read.scope, kept.scope);
        assert_eq!(read.delay, kept.delay);
        assert_eq!(read.content_types, kept.content_types);
    }

    #[test]
    fn bad_values_name_the_file_or_flag_and_the_key() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("bad.toml");
        for (text, expected) in [
            ("delay = -1\n", "bad.toml: delay -1: expected 0 or more"),
            ("dealy = 1\n", "unknown field `dealy`"),
            ("scope = \"planet\"\n", "unknown variant `planet`"),
            ("include = [\"(\"]\n", "bad.toml: include \"(\": not a regular expression"),
            ("content-types = [\"html\"]\n", "content type \"html\""),
            ("max-pages = 0\n", "bad.toml: max-pages 0: expected at least 1"),
            ("resolve = [\"a.test:1.2.3.4\"]\n", "expected HOST=IP"),
            ("nutch-min-interval = 10\nnutch-max-interval = 5\n", "less than nutch-min-interval"),
            ("robots-scan-rate = 1000\n", "bad.toml: robots-scan-rate 1000: expected at least 262144"),
            ("max-redirects = 33\n", "bad.toml: max-redirects 33: expected at most 32"),
            ("store-cache-bytes = 4096\n", "bad.toml: store-cache-bytes 4096: expected at least 1048576"),
        ] {
            std::fs::write(&file, text).unwrap();
            let error = format!("{:#}", CrawlSettings::read(&file).unwrap_err());
            assert!(error.contains(expected), "{text:?}: {error}");
            assert!(error.contains("bad.toml"), "{text:?}: {error}");
        }
        let flags = CrawlSettings { rate: Some(0.0), ..CrawlSettings::default() };
        let error = flags.check(&Origin::CommandLine).unwrap_err().to_string();
        assert!(error.starts_with("--rate 0: expected a positive number"), "{error}");
    }

    #[test]
    fn focus_settings_become_the_crawl_s_focus_or_a_named_error() {
        let data = tempfile::tempdir().unwrap();
        let words = Some(vec!["Glacier".to_owned()]);
        let focus =
            |settings: CrawlSettings| settings.to_config(data.path(), false).map(|config| config.focus);
        let plain =
            focus(CrawlSettings { focus: words.clone(), ..CrawlSettings::default() }).unwrap().unwrap();
        assert_eq!(plain.words(), &["glacier"]);
        assert_eq!(plain.estimator, freshet_focus::Estimator::FirstEdges, "the default");
        assert!(plain.bandit.is_none());
        let bandit = focus(CrawlSettings {
            focus: words.clone(),
            focus_estimator: Some("fl_n, lr_fl".into()),
            focus_bandit: Some("var".into()),
            max_pages: Some(500),
            ..CrawlSettings::default()
        })
        .unwrap()
        .unwrap();
        let arms = bandit.bandit.unwrap();
        assert_eq!(
            arms.arms,
            vec![freshet_focus::Estimator::FirstNodes, freshet_focus::Estimator::RegressionFirst]
        );
        assert_eq!(arms.horizon, 500);
        for (settings, expected) in [
            (
                CrawlSettings { focus_estimator: Some("fl_e".into()), ..CrawlSettings::default() },
                "focus is not",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    focus_estimator: Some("sl_n".into()),
                    ..CrawlSettings::default()
                },
                "focus-estimator = sl_n",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    focus_estimator: Some("nope".into()),
                    ..CrawlSettings::default()
                },
                "focus-estimator \"nope\"",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    focus_estimator: Some("fl_n,fl_e".into()),
                    ..CrawlSettings::default()
                },
                "choose among them with focus-bandit",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    focus_bandit: Some("ucb".into()),
                    ..CrawlSettings::default()
                },
                "focus-bandit \"ucb\"",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    focus_bandit: Some("epsilon-greedy".into()),
                    focus_epsilon: Some(1.5),
                    ..CrawlSettings::default()
                },
                "focus-bandit",
            ),
            (
                CrawlSettings { focus: Some(vec!["two words".into()]), ..CrawlSettings::default() },
                "one word each",
            ),
            (
                CrawlSettings {
                    focus: words.clone(),
                    revisit: Some(RevisitArg::Nutch),
                    ..CrawlSettings::default()
                },
                "with revisit = nutch",
            ),
        ] {
            let error = match focus(settings) {
                Ok(config) => panic!("accepted: {config:?}"),
                Err(error) => format!("{error:#}"),
            };
            assert!(error.contains(expected), "{error}");
        }
    }
}
