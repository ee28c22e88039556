//! Runs the stream characterizer and prints the kernel table and the fitted costs:
//! `cargo run --release -p augur-stream --example stream_run -- FC "FLAGS" [KERNELS] [DIR]`.

use augur_stream::{characterize_stream, StreamSettings};
use augur_toolchain::Toolchain;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fc = args.get(1).map_or("gfortran", String::as_str);
    let flags = args.get(2).map_or("-O2", String::as_str);
    let mut s = StreamSettings::quick();
    if let Some(k) = args.get(3).and_then(|k| k.parse().ok()) {
        s.kernels = k;
    }
    s.keep_dir = args.get(4).map(Into::into);
    let tc = match Toolchain::detect(fc, flags) {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    match characterize_stream(&tc, s, &mut |l| eprintln!("{l}")) {
        Ok(r) => {
            for n in &r.notes {
                println!("note: {n}");
            }
            for k in &r.kernels {
                let c: Vec<String> = k
                    .counts
                    .iter()
                    .map(|(op, v)| format!("{op}:{v:.2}"))
                    .collect();
                println!(
                    "{:<8} {:<28} meas {:>8.3} fit {:>8.3} loo {:>8.3}  {}",
                    k.name,
                    k.description,
                    k.measured_ns,
                    k.fitted_ns,
                    k.loo_ns,
                    c.join(" ")
                );
            }
            for (op, e) in &r.entries {
                println!(
                    "{op} {:>8.3} +- {:>7.3} {}",
                    e.mean_ns.unwrap_or(f64::NAN),
                    e.ci90_ns.unwrap_or(f64::NAN),
                    e.status
                );
            }
            println!("{:?}", r.stats);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
