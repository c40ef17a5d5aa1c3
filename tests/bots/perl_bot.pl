#!/usr/bin/perl
# A protocol 1.0 bot in Perl with no modules beyond the core: it answers every request with the
# first option offered, reading the JSON with regular expressions. It offers no features, so
# the referee must keep sending it whole views and labelled options.
use strict;
use warnings;
$| = 1;
while (my $line = <STDIN>) {
    my ($type) = $line =~ /"type":"(\w+)"/;
    next unless defined $type;
    if ($type eq 'hello') {
        print '{"type":"hello","protocol":"tourney-bot","version":"1.0","name":"perl_bot"}', "\n";
    } elsif ($type eq 'request') {
        my ($id) = $line =~ /^\{"type":"request","id":(\d+)/;
        my ($option) = $line =~ /"options":\[\{"id":"([^"]*)"/;
        die "perl_bot: no labelled options in a request\n" unless defined $option;
        print "{\"type\":\"answer\",\"id\":$id,\"option\":\"$option\"}\n";
    } elsif ($type eq 'goodbye') {
        exit 0;
    }
}
