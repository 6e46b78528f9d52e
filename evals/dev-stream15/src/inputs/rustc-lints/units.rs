fn metres(x: f64) -> f64 { x }
fn feet(x: f64) -> f64 { x * 0.3048 }
fn inches(x: f64) -> f64 { x * 0.0254 }
fn yards(x: f64) -> f64 { x * 0.9144 }
fn miles(x: f64) -> f64 { x * 1609.344 }

fn main() {
    let a = 1.0;
    let b = 2.0;
    let c = 3.0;
    let d = 4.0;
    println!("{}", metres(5.0));
}
