use strict;
use warnings;
use Test::More;
use lib 'lib';
use Roman qw(roman);

my %cases = (
    1 => 'I', 2 => 'II', 3 => 'III', 4 => 'IV', 5 => 'V', 6 => 'VI',
    7 => 'VII', 8 => 'VIII', 9 => 'IX', 10 => 'X', 14 => 'XIV',
    19 => 'XIX', 40 => 'XL', 44 => 'XLIV', 90 => 'XC', 99 => 'XCIX',
    400 => 'CD', 1994 => 'MCMXCIV', 2024 => 'MMXXIV', 3999 => 'MMMCMXCIX',
);

for my $n (sort { $a <=> $b } keys %cases) {
    is(roman($n), $cases{$n}, "roman($n) is $cases{$n}");
}

done_testing();
