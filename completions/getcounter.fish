# fish completion for getcounter(1)
#
# Completes the options (long, short and the Windows spellings, which also
# match ignoring case), the values of -f, file names after
# -o/--output and -cf/--counter-file, .gcl logs (and directories) after
# --log and --input, directories after --root, set names after -l/-q, and
# counter paths asked live from the binary: `getcounter -q` for sets and
# counters, `getcounter -q -x` for instances, with the --root series of the
# command line. A path is completed one part at a time: \Set( or \Set\,
# then \Set(instance)\, then \Set(instance)\Counter; a part with one
# candidate is passed over at once (fish would put a space after it).
#
# The current word is read with the shell's quoting undone (string
# unescape), so '\Processor(0)\% Pro, "\Memory\Av and \\Memory\\Av all
# complete; fish quotes the candidate again as it inserts it. A word that
# lost its leading backslash to the shell (\Mem unquoted is "Mem") is read
# as the path \Mem, as the bash completion does. Option spellings that fish
# does not know in another case (-F, -COUNTER, -CF) still get their values.
#
# Limits of fish 3: a partial path picked from the pager gets a space after
# it, and a word like -lists is read as -l and more short options, so only
# -List completes to -ListSet there (-sampleint, -maxs and -C do complete).
#
# The binary is $GETCOUNTER_BIN if set, else the command word when it names
# a file (./getcounter), else getcounter from PATH.

# __getcounter_run ARGS...: the binary's stdout, with the --root series and
# the --pcap files of the command line (so instances come from the same
# fixture or capture files).
function __getcounter_run
    set -l toks (commandline -opc)
    set -l bin $GETCOUNTER_BIN
    if test -z "$bin"
        set bin getcounter
        if string match -q -- '*/*' $toks[1]; and test -x $toks[1]
            set bin $toks[1]
        end
    end
    set -l roots
    set -l n (count $toks)
    for i in (seq 2 $n)
        switch $toks[$i]
            case --root --pcap
                if test $i -lt $n
                    # ~/ is the shell's to expand, later
                    set -a roots $toks[$i] (string replace -r '^~/' "$HOME/" -- $toks[(math $i + 1)])
                end
            case '--root=*' '--pcap=*'
                set -a roots $toks[$i]
        end
    end
    command -q $bin; or return 1
    command $bin $roots $argv 2>/dev/null
end

# __getcounter_sets: every set name, one per line, with ( when it has
# instances and \ when it has none.
function __getcounter_sets
    set -l prev
    for line in (__getcounter_run -q)
        # \Set(instance)\Counter or \Set\Counter
        set -l m (string match -r -- '^\x5c([^(\x5c]+)([(\x5c])' $line)
        or continue
        test "$m[2]" = "$prev"; and continue
        set prev $m[2]
        printf '%s%s\n' $m[2] $m[3]
    end
end

# __getcounter_candidates VALUE: the next part of the counter path in
# VALUE: \Set( or \Set\, then \Set(instance)\, then the counters.
function __getcounter_candidates
    set -l p $argv[1]
    set -l host ''
    set -l bs \\
    if string match -qr -- '^\x5c\x5c' $p
        # \\host\...
        set -l m (string match -r -- '^\x5c\x5c([^\x5c]*)\x5c(.*)$' $p)
        or return 0
        set host "$bs$bs$m[2]"
        set p "$bs$m[3]"
    end
    set -l rest (string sub -s 2 -- $p)
    if not string match -qr -- '[(\x5c]' $rest
        for s in (__getcounter_sets)
            printf '%s\n' "$host$bs$s"
        end
    else if string match -qr -- '^[^(\x5c]*\(' $rest; and not string match -qr -- '\)\x5c' $rest
        set -l set (string replace -r -- '\(.*' '' $rest)
        printf '%s\n' "$host$bs$set(*)$bs"
        set -l seen
        for line in (__getcounter_run -q -x $set)
            # \Set(instance)\Counter: the instance may hold ( ) and \
            set -l inst (string replace -r -- '^[^(]*\((.*)\)\x5c[^\x5c]*$' '$1' $line)
            or continue
            contains -- $inst $seen; and continue
            set -a seen $inst
            printf '%s\n' "$host$bs$set($inst)$bs"
        end
    else
        # Everything up to the last \ stays as typed.
        set -l set
        if string match -qr -- '^[^(\x5c]*\(' $rest
            set set (string replace -r -- '\(.*' '' $rest)
        else
            set set (string replace -r -- '\x5c.*' '' $rest)
        end
        set -l head (string replace -r -- '\x5c[^\x5c]*$' '' $p)
        for line in (__getcounter_run -q $set)
            printf '%s\n' "$host$head$bs"(string replace -r -- '^.*\x5c' '' $line)
        end
    end
end

# __getcounter_starts VALUE CANDIDATE...: the candidates that start with
# VALUE, ignoring case.
function __getcounter_starts
    set -l v (string lower -- $argv[1])
    set -l n (string length -- $argv[1])
    for c in $argv[2..-1]
        if test (string lower -- (string sub -l $n -- $c)) = "$v"
            printf '%s\n' $c
        end
    end
end

# __getcounter_paths: complete the counter path in the current word (after
# any --counter= that fish puts back itself). While exactly one candidate
# matches and it is partial (\Memory\), go on to the next part: fish puts a
# space after a unique match.
function __getcounter_paths
    set -l v (commandline -ct | string replace -r -- '^--[a-z-]+=' '' | string unescape)
    set -l bs \\
    if not string match -qr -- '^\x5c' "$v"
        # A path starts with \; accept the backslash the shell ate.
        set v "$bs$v"
    end
    set -l matches
    for depth in 1 2 3 4
        set matches (__getcounter_starts $v (__getcounter_candidates $v))
        if test (count $matches) -ne 1
            or not string match -qr -- '[(\x5c]$' $matches[1]
            or test "$matches[1]" = "$v"
            break
        end
        set v $matches[1]
    end
    printf '%s\n' $matches
end

# __getcounter_gcl: .gcl logs and directories for the current word.
function __getcounter_gcl
    set -l tok (commandline -ct | string replace -r -- '^--[a-z-]+=' '')
    complete -C "__getcounter_no_such_command $tok" | string match -r -- '^.*(?:\.gcl|/)(?:\t.*)?$'
end

# __getcounter_dirs: directories for the current word (after any --root=).
function __getcounter_dirs
    __fish_complete_directories (commandline -ct | string replace -r -- '^--root=' '')
end

# __getcounter_list_mode: -l, --list-set, -ListSet, -q or -qx is on the
# line: bare words are set patterns.
function __getcounter_list_mode
    for w in (commandline -opc)[2..-1]
        switch $w
            case -l --list-set
                return 0
        end
        switch (string lower -- $w)
            case -q -qx -listset
                return 0
        end
    end
    return 1
end

# __getcounter_words: a bare word (not an option, not the value of an
# option fish knows): the value of an option spelled in another case, a
# set name in list mode, else a counter path.
function __getcounter_words
    set -l prev (commandline -opc)[-1]
    switch (string lower -- $prev)
        case -f
            printf '%s\n' table list csv tsv json gcl BIN
            return
        case -o -cf
            __fish_complete_path (commandline -ct)
            return
        case -counter
            __getcounter_paths
            return
        case -sampleinterval -si -maxsamples -sc
            return
    end
    if __getcounter_list_mode
        for s in (__getcounter_sets)
            printf '%s\n' (string sub -e -1 -- $s)
        end
    else
        __getcounter_paths
    end
end

# __getcounter_windows: the Windows spellings that start with the current
# word, ignoring case (fish reads -lists as -l with more short options).
function __getcounter_windows
    __getcounter_starts (commandline -ct) -Counter -SampleInterval -MaxSamples -Continuous \
        -ListSet -si -sc -cf -qx '-?'
end

complete -c getcounter -e
complete -c getcounter -f
complete -c getcounter -n 'not string match -q -- "-*" (commandline -ct)' -a '(__getcounter_words)'
complete -c getcounter -n 'string match -q -- "-*" (commandline -ct)' -a '(__getcounter_windows)'

complete -c getcounter -s c -l counter -o Counter -x -a '(__getcounter_paths)' \
    -d 'A counter path (repeatable)'
complete -c getcounter -l counter-file -o cf -r -F -d 'A file of counter paths, one per line'
complete -c getcounter -s i -l interval -o SampleInterval -o si -x -d 'Sample interval in seconds'
complete -c getcounter -s n -l samples -o MaxSamples -o sc -x -d 'Number of samples to print'
complete -c getcounter -l continuous -o Continuous -d 'Sample until interrupted'
complete -c getcounter -s f -l format -x -a 'table list csv tsv json gcl BIN' -d 'Output format'
complete -c getcounter -s o -l output -r -F -d 'Write to a file'
complete -c getcounter -s y -l yes -d 'Replace a non-empty output file'
complete -c getcounter -l precision -x -d 'Decimals of values'
complete -c getcounter -l smooth -x -d 'Show a load average of each value (C 2..127)'
complete -c getcounter -l utc -d 'Show times in UTC'
complete -c getcounter -s l -l list-set -o ListSet -d 'List the counter sets'
complete -c getcounter -s q -d 'List the counter paths of the matching sets'
complete -c getcounter -o qx -d 'List the counter paths per instance'
complete -c getcounter -s x -l instances -d 'With -q, one line per current instance'
complete -c getcounter -l root -x -a '(__getcounter_dirs)' -d 'Read DIR/proc and DIR/sys'
complete -c getcounter -s v -l verbose -d 'More detail'
complete -c getcounter -s h -l help -o '?' -d 'Show the help'
complete -c getcounter -s V -l version -d 'Show the version'
complete -c getcounter -l log -x -a '(__getcounter_gcl)' -d 'Also record the raw samples to a log'
complete -c getcounter -l max-size -x -d 'Stop a log at this size (K, M, G suffixes)'
complete -c getcounter -l circular -d 'With --max-size, a ring over the oldest samples'
complete -c getcounter -l append -d 'Continue an existing gcl log'
complete -c getcounter -l serve -x -d 'Serve raw fields to Prometheus at [ADDR:]PORT'
complete -c getcounter -l serve-max-requests -x -d 'Concurrent scrapes before 503'
complete -c getcounter -l tui -d 'The live screen: graph, histogram, report'
complete -c getcounter -l ascii -d 'With --tui, an ASCII graph instead of braille'
complete -c getcounter -l no-color -d 'With --tui, no colour'
complete -c getcounter -l pcap -r -F -d 'Count Network Capture from a pcap/pcapng file'
complete -c getcounter -l local-mac -x -d 'With --pcap, frames from this MAC count as sent'
complete -c getcounter -l capture-filter -x -d 'Only frames matching this BPF filter'
complete -c getcounter -l snaplen -x -d 'Bytes kept of each live frame (default 128)'
complete -c getcounter -l capture-buffer -x -d 'Live capture buffer size (default 8M)'
complete -c getcounter -l promisc -d 'Capture promiscuously: other hosts\' frames count'
complete -c getcounter -l user -x -a '(__fish_complete_users)' -d 'Run as this user once capturing'
complete -c getcounter -l tls-cert -r -F -d 'With --serve, serve https with this certificate'
complete -c getcounter -l tls-key -r -F -d 'With --tls-cert, its private key'
complete -c getcounter -l tls-client-ca -r -F -d 'Require client certificates signed by this CA'
complete -c getcounter -l basic-auth -r -F -d 'With --serve, a file of user:bcrypt-hash lines'
complete -c getcounter -l prometheus-rules -d 'Print recording rules deriving the counters'
complete -c getcounter -l input -x -a '(__getcounter_gcl)' -d 'Replay a gcl log (repeatable)'
complete -c getcounter -l begin -x -d 'With --input, from this time'
complete -c getcounter -l end -x -d 'With --input, up to this time'
complete -c getcounter -l every -x -d 'With --input, keep every Nth sample'
complete -c getcounter -l summary -d 'With --input, what the logs hold and any damage'
