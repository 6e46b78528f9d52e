/// Clamps a raw sensor reading to a percentage between 0 and 100.
pub fn clamp_percent(raw: i32) -> u8 {
    raw.clamp(0, 100) as u8
}

#[cfg(test)]
mod tests {
    use super::clamp_percent;

    #[test]
    fn clamps_negative_one() { assert_eq!(clamp_percent(-1), 0); }
    #[test]
    fn clamps_large_negative() { assert_eq!(clamp_percent(-500), 0); }
    #[test]
    fn keeps_zero() { assert_eq!(clamp_percent(0), 0); }
    #[test]
    fn keeps_one() { assert_eq!(clamp_percent(1), 1); }
    #[test]
    fn keeps_twenty_five() { assert_eq!(clamp_percent(25), 25); }
    #[test]
    fn keeps_fifty() { assert_eq!(clamp_percent(50), 50); }
    #[test]
    fn keeps_seventy_five() { assert_eq!(clamp_percent(75), 75); }
    #[test]
    fn keeps_ninety_nine() { assert_eq!(clamp_percent(99), 99); }
    #[test]
    fn keeps_hundred() { assert_eq!(clamp_percent(100), 100); }
    #[test]
    fn clamps_hundred_one() { assert_eq!(clamp_percent(101), 100); }
    #[test]
    fn clamps_two_hundred() { assert_eq!(clamp_percent(200), 100); }
    #[test]
    fn clamps_max() { assert_eq!(clamp_percent(i32::MAX), 100); }
    #[test]
    fn clamps_min() { assert_eq!(clamp_percent(i32::MIN), 0); }
}
