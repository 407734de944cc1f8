//! `ratewatch demo-server`: the embedded simulator as a standalone HTTP server, for
//! benchmarks, scripts and trying the tool against something that looks like the service;
//! `ratewatch demo-portfolio`: a portfolio of its companies to screen.

use crate::error::{Error, ExitCode};
use crate::settings::cli::{DemoPortfolioArgs, DemoServerArgs};
use crate::sim::Dataset;

/// Without the simulator's server in this build, `demo-server` says so.
#[cfg(not(feature = "demo"))]
pub async fn serve(_: DemoServerArgs) -> Result<ExitCode, Error> {
    Err(crate::connection::demo_missing())
}

#[cfg(feature = "demo")]
pub async fn serve(args: DemoServerArgs) -> Result<ExitCode, Error> {
    use super::emit;
    use crate::sim::{Faults, SimConfig, SimServer};
    use std::net::{Ipv4Addr, SocketAddr};
    use std::time::Duration;
    for (flag, p) in [
        ("--fail-rate", args.fail_rate),
        ("--drop-rate", args.drop_rate),
        ("--slow-rate", args.slow_rate),
        ("--corrupt-rate", args.corrupt_rate),
    ] {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::Config(format!(
                "{flag} must be between 0 and 1, got {p}"
            )));
        }
    }
    if let Some(r) = args.rate_limit.filter(|r| !r.is_finite() || *r <= 0.0) {
        return Err(Error::Config(format!(
            "--rate-limit must be a positive number of requests per second, got {r}"
        )));
    }
    let config = SimConfig {
        seed: args.seed,
        per_country: args.companies_per_country,
        day: args.day,
        // The served day on today, the days before it before it.
        calendar: Default::default(),
        key: args.key,
        faults: Faults {
            latency: Duration::from_millis(args.latency_ms),
            rate_limit: args.rate_limit,
            fail_rate: args.fail_rate,
            drop_rate: args.drop_rate,
            slow_rate: args.slow_rate,
            slow: Duration::from_millis(args.slow_ms),
            corrupt_rate: args.corrupt_rate,
        },
    };
    let server = SimServer::start(config, SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)))
        .await
        .map_err(|e| Error::io(format!("cannot listen on 127.0.0.1:{}", args.port), e))?;
    // The first line of stdout is the contract scripts rely on: the base URL, flushed.
    emit(&format!("{}\n", server.base_url()))?;
    eprintln!(
        "ratewatch demo-server: {} companies in each of 10 countries, simulated day {} (dated today); send the key in the `apikey` header; Ctrl-C stops",
        server.dataset().per_country(),
        args.day
    );
    tokio::select! {
        () = server.wait() => {},
        _ = tokio::signal::ctrl_c() => {},
    }
    Ok(ExitCode::Clean)
}

pub fn portfolio(args: DemoPortfolioArgs) -> Result<ExitCode, Error> {
    let data = Dataset::new(args.seed, args.companies_per_country);
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    match crate::sim::portfolio::write(&data, args.rows, out) {
        Ok(()) => Ok(ExitCode::Clean),
        Err(e) => match e.into_kind() {
            csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
                Ok(ExitCode::Clean)
            }
            csv::ErrorKind::Io(io) => Err(Error::io("cannot write the portfolio", io)),
            other => Err(Error::Config(format!(
                "cannot write the portfolio: {other:?}"
            ))),
        },
    }
}
