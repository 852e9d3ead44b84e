# bash completion for getcounter(1)
#
# Completes the options (long, short and the Windows spellings), the values
# of -f, file names after -o/--output/--counter-file/-cf, .gcl logs (and
# directories) after --log/--input, directories after --root, set names
# after -l/-q, and counter paths asked live from the
# binary: `getcounter -q` for sets and counters, `getcounter -q -x` for
# instances. A path is completed one part at a time: \Set( or \Set\, then
# \Set(instance)\, then \Set(instance)\Counter; a part with one candidate
# is passed over at once (readline would close the quote after it).
#
# The current word is read from COMP_LINE up to COMP_POINT with the shell's
# quoting undone, so '\Processor(0)\% Pro, "\Memory\Av and the unquoted
# \\Memory\\Av all complete; each candidate is quoted again the way the word
# was typed, and cut where readline's word starts (after an open quote, or
# after the last unquoted COMP_WORDBREAKS character such as '=' or ':').
#
# Needs bash 4 or later. The binary is $GETCOUNTER_BIN if set, else the
# command word when it names a file (./getcounter), else getcounter from PATH.

# The options: long and short ones match case-sensitively, the Windows
# spellings (and typeperf's) ignoring case.
_getcounter_long=(--counter --counter-file --interval --samples --continuous --format --output
	--yes --precision --smooth --utc --list-set --instances --root --verbose --help --version
	--log --input --begin --end --every --summary --max-size --circular --append
	--serve --serve-max-requests --tls-cert --tls-key --tls-client-ca --basic-auth
	--prometheus-rules --tui --ascii --no-color
	--pcap --local-mac --capture-filter --snaplen --capture-buffer --promisc --user)
_getcounter_short=(-c -i -n -f -o -y -l -q -x -v -h -V)
_getcounter_windows=(-Counter -SampleInterval -MaxSamples -Continuous -ListSet -si -sc -cf -qx -?)
_getcounter_formats=(table list csv tsv json gcl BIN)

# _getcounter_parse: split COMP_LINE[0, COMP_POINT) into shell words.
# Sets _gc_words (dequoted previous words), _gc_val (the dequoted current
# word), _gc_quote (the quote open at the cursor: ', " or empty) and
# _gc_head (the dequoted part of the current word before readline's start).
_getcounter_parse()
{
	local line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
	local i c n len=${#line} esc=0 inword=0 brk="" qhead=""
	local breaks=${COMP_WORDBREAKS-$' \t\n"\'><=;|&(:'}

	_gc_words=() _gc_val="" _gc_quote=""
	for ((i = 0; i < len; i++)); do
		c=${line:i:1}
		if ((esc)); then
			_gc_val+=$c
			esc=0
			continue
		fi
		case $_gc_quote in
		"'")
			if [[ $c == "'" ]]; then _gc_quote=""; else _gc_val+=$c; fi
			;;
		'"')
			if [[ $c == '"' ]]; then
				_gc_quote=""
			elif [[ $c == '\' ]]; then
				n=${line:i+1:1}
				if [[ -n $n && $n == [\\\$\`\"] ]]; then esc=1; else _gc_val+=$c; fi
			else
				_gc_val+=$c
			fi
			;;
		*)
			case $c in
			[$' \t\n'])
				if ((inword)); then
					_gc_words+=("$_gc_val")
					_gc_val="" brk="" inword=0
				fi
				;;
			[\'\"])
				_gc_quote=$c qhead=$_gc_val inword=1
				;;
			'\')
				esc=1 inword=1
				;;
			*)
				_gc_val+=$c
				inword=1
				[[ $breaks == *"$c"* ]] && brk=$_gc_val
				;;
			esac
			;;
		esac
	done
	if [[ -n $_gc_quote ]]; then _gc_head=$qhead; else _gc_head=$brk; fi
}

# _getcounter_reply [-s] VALUE...: each full value that starts with the
# current word (case-insensitively; with -s case-sensitively), cut at
# readline's start and quoted as the word is, appended to COMPREPLY. Values
# ending in ( or \ are partial paths: no space after them.
_getcounter_reply()
{
	local v rest q out=() k c n partial=0 fold=1

	if [[ ${1-} == -s ]]; then
		fold=0
		shift
	fi
	for v; do
		if ((fold)); then
			[[ ${v,,} == "${_gc_val,,}"* ]] || continue
		else
			[[ $v == "$_gc_val"* ]] || continue
		fi
		rest=${v:${#_gc_head}}
		[[ -n $rest ]] || continue
		case $_gc_quote in
		"'")
			q=${rest//\'/\'\\\'\'}
			;;
		'"')
			q=""
			for ((k = 0; k < ${#rest}; k++)); do
				c=${rest:k:1} n=${rest:k+1:1}
				case $c in
				[\$\`\"]) q+="\\$c" ;;
				'\') if [[ -z $n || $n == [\\\$\`\"] ]]; then q+='\\'; else q+='\'; fi ;;
				*) q+=$c ;;
				esac
			done
			;;
		*)
			printf -v q %q "$rest"
			;;
		esac
		out+=("$q")
		[[ $v == *[\(\\] ]] && partial=1
	done
	COMPREPLY+=(${out[@]+"${out[@]}"})
	((partial)) && compopt -o nospace 2>/dev/null
	return 0
}

# _getcounter_run ARGS...: the binary's stdout, with the --root series and
# the --pcap files of the command line (so instances come from the same
# fixture or capture files).
_getcounter_run()
{
	local bin=${GETCOUNTER_BIN:-} w k roots=()

	if [[ -z $bin ]]; then
		w=${_gc_words[0]-}
		if [[ $w == */* && -x $w ]]; then bin=$w; else bin=getcounter; fi
	fi
	for ((k = 1; k < ${#_gc_words[@]}; k++)); do
		case ${_gc_words[k]} in
		--root | --pcap)
			w=${_gc_words[k + 1]-}
			[[ $w == "~/"* ]] && w=$HOME/${w#"~/"} # the shell expands it later
			roots+=("${_gc_words[k]}" "$w")
			;;
		--root=* | --pcap=*)
			w=${_gc_words[k]}
			[[ $w == *"=~/"* ]] && w=${w%%=*}=$HOME/${w#*=~/}
			roots+=("$w")
			;;
		esac
	done
	"$bin" ${roots[@]+"${roots[@]}"} "$@" 2>/dev/null
}

# _getcounter_sets: every set name, one per line, with ( when it has instances.
_getcounter_sets()
{
	local line name prev=""

	while IFS= read -r line; do
		line=${line#\\}
		name=${line%%[\(\\]*}
		[[ $name == "$prev" ]] && continue
		prev=$name
		if [[ ${line:${#name}:1} == "(" ]]; then printf '%s(\n' "$name"; else printf '%s\\\n' "$name"; fi
	done < <(_getcounter_run -q)
}

# _getcounter_candidates PREFIX VALUE: the next part of the counter path in
# VALUE (which starts with PREFIX, the option of --counter=PATH) into
# _gc_cands: \Set( or \Set\, then \Set(instance)\, then the counters.
_getcounter_candidates()
{
	local prefix=$1 p=${2:${#1}} host="" set rest inst line seen=" "

	_gc_cands=()
	if [[ $p == \\\\* ]]; then
		rest=${p:2}
		[[ $rest == *\\* ]] || return 0
		host=\\\\${rest%%\\*}
		p=\\${rest#*\\}
	fi
	prefix+=$host
	rest=${p:1}
	if [[ $rest != *[\(\\]* ]]; then
		while IFS= read -r line; do
			_gc_cands+=("$prefix\\$line")
		done < <(_getcounter_sets)
	elif [[ $rest == *\(* && $rest != *')\'* && ${rest%%\(*} != *\\* ]]; then
		set=${rest%%\(*}
		_gc_cands+=("$prefix\\$set(*)\\")
		while IFS= read -r line; do
			line=${line%\\*}
			line=${line#*\(}
			inst=${line%\)}
			[[ $seen == *" $inst "* ]] && continue
			seen+="$inst "
			_gc_cands+=("$prefix\\$set($inst)\\")
		done < <(_getcounter_run -q -x "$set")
	else
		# Everything up to the last \ stays as typed.
		if [[ $rest == *\(* && ${rest%%\(*} != *\\* ]]; then
			set=${rest%%\(*}
		else
			set=${rest%%\\*}
		fi
		while IFS= read -r line; do
			_gc_cands+=("$prefix${p%\\*}\\${line##*\\}")
		done < <(_getcounter_run -q "$set")
	fi
}

# _getcounter_paths PREFIX: complete the counter path in the current word.
# While exactly one candidate matches and it is partial (\Memory\), go on
# to the next part: readline closes an open quote after a unique match.
_getcounter_paths()
{
	local prefix=$1 v=$_gc_val p c depth matches=()

	p=${v:${#prefix}}
	if [[ $p != \\* ]]; then
		# A path starts with \; accept the backslash the shell ate.
		v=$prefix\\$p
		_gc_head=$prefix _gc_val=$v
	fi
	for ((depth = 0; depth < 4; depth++)); do
		_getcounter_candidates "$prefix" "$v"
		matches=()
		for c in ${_gc_cands[@]+"${_gc_cands[@]}"}; do
			[[ ${c,,} == "${v,,}"* ]] && matches+=("$c")
		done
		if ((${#matches[@]} != 1)) || [[ ${matches[0]} != *[\(\\] || ${matches[0]} == "$v" ]]; then
			break
		fi
		v=${matches[0]}
	done
	_getcounter_reply ${matches[@]+"${matches[@]}"}
}

# _getcounter_gcl VALUE: the .gcl files and the directories that start
# with VALUE, into COMPREPLY.
_getcounter_gcl()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -X '!*.gcl' -- "$1"; compgen -d -- "$1")
}

_getcounter()
{
	local prev="" w lw list=0 opt sets=() line

	COMPREPLY=()
	_getcounter_parse
	((${#_gc_words[@]} > 1)) && prev=${_gc_words[${#_gc_words[@]} - 1]}
	for w in ${_gc_words[@]+"${_gc_words[@]:1}"}; do
		lw=${w,,}
		case $w in -l | --list-set) list=1 ;; esac
		case $lw in -q | -qx | -listset) list=1 ;; esac
	done

	# --option=value
	if [[ $_gc_val == --*=* ]]; then
		opt=${_gc_val%%=*}
		case $opt in
		--format) _getcounter_reply "${_getcounter_formats[@]/#/$opt=}" ;;
		--counter) _getcounter_paths "$opt=" ;;
		--log | --input)
			_gc_head=$opt= _gc_val=${_gc_val#*=}
			_getcounter_gcl "$_gc_val"
			;;
		--output | --counter-file | --root | --tls-cert | --tls-key | --tls-client-ca | \
			--basic-auth)
			[[ $opt == --root ]] && w=-d || w=-f
			_gc_head=$opt= _gc_val=${_gc_val#*=}
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen "$w" -- "$_gc_val")
			;;
		esac
		return 0
	fi

	case $prev in
	-f | --format) _getcounter_reply "${_getcounter_formats[@]}"; return 0 ;;
	-o | --output | --counter-file | --root | --pcap | --tls-cert | --tls-key | --tls-client-ca | \
		--basic-auth)
		[[ $prev == --root ]] && w=-d || w=-f
		_gc_head=""
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen "$w" -- "$_gc_val")
		return 0
		;;
	--log | --input) _gc_head=""; _getcounter_gcl "$_gc_val"; return 0 ;;
	-c | --counter) _getcounter_paths ""; return 0 ;;
	-i | -n | --interval | --samples | --precision | --smooth | --begin | --end | --every | --max-size | \
		--serve | --serve-max-requests | --local-mac | --capture-filter | --snaplen | \
		--capture-buffer)
		return 0
		;;
	--user) mapfile -t COMPREPLY < <(compgen -u -- "$_gc_val"); return 0 ;;
	esac
	case ${prev,,} in
	-f) _getcounter_reply "${_getcounter_formats[@]}"; return 0 ;;
	-o | -cf)
		compopt -o filenames 2>/dev/null
		_gc_head=""
		mapfile -t COMPREPLY < <(compgen -f -- "$_gc_val")
		return 0
		;;
	-counter) _getcounter_paths ""; return 0 ;;
	-sampleinterval | -si | -maxsamples | -sc) return 0 ;;
	esac

	if [[ $_gc_val == -* ]]; then
		_getcounter_reply -s "${_getcounter_long[@]}" "${_getcounter_short[@]}"
		_getcounter_reply "${_getcounter_windows[@]}"
	elif ((list)); then
		while IFS= read -r line; do
			sets+=("${line%[\(\\]}")
		done < <(_getcounter_sets)
		_getcounter_reply ${sets[@]+"${sets[@]}"}
	else
		_getcounter_paths ""
	fi
	return 0
}

complete -F _getcounter getcounter
