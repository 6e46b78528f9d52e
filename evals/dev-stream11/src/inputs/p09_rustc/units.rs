#[derive(Debug)]
enum Unit { Meter, Foot, Inch, Yard, Mile }

fn to_meters(v: f64, u: Unit) -> f64 {
    let scale = 1.0;
    let offset = 0.0;
    match u {
        Unit::Meter => v,
        Unit::Foot => v * 0.3048,
        Unit::Inch => v * 0.0254,
        Unit::Yard => v * 0.9144,
        Unit::Mile => v * 1609.344,
    }
}

fn main() {
    let a = 3;
    let b = 4;
    let c = 5;
    println!("{}", to_meters(2.0, Unit::Foot));
}
