package Roman;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = ('roman');

my @map = ([1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'],
           [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'],
           [5, 'V'], [4, 'IV'], [1, 'I']);

sub roman {
    my ($n) = @_;
    my $out = '';
    for my $pair (@map) {
        my ($value, $letters) = @$pair;
        while ($n >= $value) {
            $out .= $letters;
            $n -= $value;
        }
    }
    return $out;
}

1;
