# Sourced by the experiments that serve a directory over HTTP (static-site/run.sh,
# real-site.sh): nginx (installed from Debian if missing) on a free port of 127.0.0.1, with its
# own configuration and logs in a work directory, not the system's nginx.
#
# usage: source experiments/nginx-common.sh; start_nginx SITE_DIR WORK_DIR
# Sets `port`, `base` (http://127.0.0.1:PORT/) and `nginx_pid`; each request is logged to
# WORK_DIR/nginx/access.log as `STATUS URI USER_AGENT`. stop_nginx stops it (the caller's exit
# trap should call it).
nginx_pid=
stop_nginx() {
    [[ -n $nginx_pid ]] && kill "$nginx_pid" 2> /dev/null && wait "$nginx_pid" 2> /dev/null || true
    nginx_pid=
}

start_nginx() {
    local site=$1 work=$2/nginx
    command -v nginx > /dev/null || [[ -x /usr/sbin/nginx ]] || apt-get install -y nginx > /dev/null
    local nginx_bin; nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$work"
    cat > "$work/nginx.conf" << CONF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
$([[ $(id -u) == 0 ]] && echo "user root;")
events { worker_connections 1024; }
http {
    types { text/html html; text/plain txt; text/css css; text/javascript js; }
    default_type application/octet-stream;
    log_format bench '\$status \$request_uri \$http_user_agent';
    access_log $work/access.log bench;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    server {
        listen 127.0.0.1:$port;
        root $site;
        index index.html;
    }
}
CONF
    "$nginx_bin" -p "$work" -c "$work/nginx.conf" &
    nginx_pid=$!
    local _
    for _ in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
    base=http://127.0.0.1:$port/
}
