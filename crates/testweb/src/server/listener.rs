//! A TCP listener whose connections a handler can reset (the `reset` misbehaviour).
//!
//! HTTP handlers never see their socket, so each accepted stream carries a shared flag, and
//! the handler receives the same flag as connection info ([`ConnectionHandle`]). When the
//! handler raises it, the next write on the stream sets `SO_LINGER` to zero and fails: hyper
//! drops the connection and the kernel sends a TCP RST instead of any response.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The listener: a [`TcpListener`] whose streams can be reset.
#[derive(Debug)]
pub(crate) struct ResettableListener {
    pub(crate) inner: TcpListener,
}

/// What a handler knows of its connection: the peer, and the flag that resets it.
#[derive(Debug, Clone)]
pub(crate) struct ConnectionHandle {
    reset: Arc<AtomicBool>,
}

impl ConnectionHandle {
    /// Resets the connection instead of answering.
    pub(crate) fn reset(&self) {
        self.reset.store(true, Ordering::Release);
    }
}

/// An accepted stream that fails every write once its flag is raised.
#[derive(Debug)]
pub(crate) struct ResettableStream {
    inner: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Listener for ResettableListener {
    type Io = ResettableStream;
    type Addr = ConnectionHandle;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, _peer)) => {
                    let _ = stream.set_nodelay(true);
                    let reset = Arc::new(AtomicBool::new(false));
                    let handle = ConnectionHandle { reset: Arc::clone(&reset) };
                    return (ResettableStream { inner: stream, reset }, handle);
                }
                // Out of file descriptors and the like: wait a little, as axum's own listener does.
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        // Only the handle type is needed here; the real address is read from `inner`.
        Ok(ConnectionHandle { reset: Arc::new(AtomicBool::new(false)) })
    }
}

impl Connected<IncomingStream<'_, ResettableListener>> for ConnectionHandle {
    fn connect_info(stream: IncomingStream<'_, ResettableListener>) -> Self {
        stream.remote_addr().clone()
    }
}

impl ResettableStream {
    fn check_reset(&self) -> io::Result<()> {
        if self.reset.load(Ordering::Acquire) {
            // Linger 0: closing sends RST and discards anything unsent.
            let _ = self.inner.set_zero_linger();
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "testweb: reset on purpose"));
        }
        Ok(())
    }
}

impl AsyncRead for ResettableStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for ResettableStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check_reset()?;
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check_reset()?;
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check_reset()?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The bound address of `listener`.
pub(crate) fn bound_address(listener: &ResettableListener) -> io::Result<SocketAddr> {
    listener.inner.local_addr()
}
