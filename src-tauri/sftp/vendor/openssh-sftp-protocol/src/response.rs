#![forbid(unsafe_code)]

use super::{
    file_attrs::FileAttrs,
    {constants, seq_iter::SeqIter, visitor::impl_visitor, HandleOwned},
};

use std::{borrow::Cow, iter::FusedIterator, path::Path, str::from_utf8};

use bitflags::bitflags;
use openssh_sftp_protocol_error::{ErrMsg, ErrorCode};
use serde::{
    de::{Deserializer, Error, Unexpected},
    Deserialize,
};

bitflags! {
    /// The extension that the sftp-server supports.
    #[derive(Debug, Default, Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash)]
    pub struct Extensions: u16 {
        const POSIX_RENAME = 1 << 0;
        const STATVFS = 1 << 1;
        const FSTATVFS= 1<< 2;
        const HARDLINK= 1<< 3;
        const FSYNC= 1<< 4;
        const LSETSTAT= 1<< 5;
        const LIMITS= 1<< 6;
        const EXPAND_PATH= 1<< 7;
        const COPY_DATA= 1<< 8;
    }
}

#[derive(Debug, Clone, Copy)]
pub struct ServerVersion {
    pub version: u32,
    pub extensions: Extensions,
}
impl ServerVersion {
    /// * `bytes` - should not include the initial 4-byte which server
    ///   as the length of the whole packet.
    pub fn deserialize<'de, It>(
        de: &mut ssh_format::Deserializer<'de, It>,
    ) -> ssh_format::Result<Self>
    where
        It: FusedIterator + Iterator<Item = &'de [u8]>,
    {
        let packet_type = u8::deserialize(&mut *de)?;
        if packet_type != constants::SSH_FXP_VERSION {
            return Err(ssh_format::Error::custom("Unexpected response"));
        }

        let version = u32::deserialize(&mut *de)?;

        let mut extensions = Extensions::default();

        while de.has_remaining_data() {
            // sftp v3 does not specify the encoding of extension names and revisions.
            //
            // Read both name and revision before continue parsing them
            // so that if the current iteration is skipped by 'continue',
            // the next iteration can continue read in extensions without error.
            let name = Cow::<'_, [u8]>::deserialize(&mut *de)?;
            let revision = Cow::<'_, [u8]>::deserialize(&mut *de)?;

            let optional_extension_pair = (|| {
                let name = from_utf8(&name).ok()?;
                let revision = from_utf8(&revision).ok()?;
                let revision: u64 = revision.parse().ok()?;

                Some((name, revision))
            })();

            let extension_pair = if let Some(extension_pair) = optional_extension_pair {
                extension_pair
            } else {
                continue;
            };

            match extension_pair {
                constants::EXT_NAME_POSIX_RENAME => {
                    extensions |= Extensions::POSIX_RENAME;
                }
                constants::EXT_NAME_STATVFS => {
                    extensions |= Extensions::STATVFS;
                }
                constants::EXT_NAME_FSTATVFS => {
                    extensions |= Extensions::FSTATVFS;
                }
                constants::EXT_NAME_HARDLINK => {
                    extensions |= Extensions::HARDLINK;
                }
                constants::EXT_NAME_FSYNC => {
                    extensions |= Extensions::FSYNC;
                }
                constants::EXT_NAME_LSETSTAT => {
                    extensions |= Extensions::LSETSTAT;
                }
                constants::EXT_NAME_LIMITS => {
                    extensions |= Extensions::LIMITS;
                }
                constants::EXT_NAME_EXPAND_PATH => {
                    extensions |= Extensions::EXPAND_PATH;
                }
                constants::EXT_NAME_COPY_DATA => {
                    extensions |= Extensions::COPY_DATA;
                }

                _ => (),
            }
        }

        Ok(Self {
            version,
            extensions,
        })
    }
}

/// Payload of extended reply response when [`crate::request::RequestInner::Limits`]
/// is sent.
#[derive(Debug, Copy, Clone, Eq, PartialEq, Deserialize)]
pub struct Limits {
    pub packet_len: u64,
    pub read_len: u64,
    pub write_len: u64,
    pub open_handles: u64,
}

/// Payload of extended reply response when [`crate::request::RequestInner::Statvfs`]
/// or [`crate::request::RequestInner::Fstatvfs`] is sent.
#[derive(Debug, Copy, Clone, Eq, PartialEq, Deserialize)]
pub struct Statvfs {
    /// File system block size
    pub bsize: u64,
    /// Fundamental file system block size
    pub frsize: u64,
    /// Number of blocks (unit `frsize`)
    pub blocks: u64,
    /// Free blocks in file system
    pub bfree: u64,
    /// Free blocks for non-root
    pub bavail: u64,
    /// Total file inodes
    pub files: u64,
    /// Free file inodes
    pub ffree: u64,
    /// Free file inodes for non-root
    pub favail: u64,
    /// File system id
    pub fsid: u64,
    /// Bit mask of [`constants::SSH_FXE_STATVFS_ST_RDONLY`] and
    /// [`constants::SSH_FXE_STATVFS_ST_NOSUID`]
    pub flag: u64,
    /// Maximum filename length
    pub namemax: u64,
}

#[derive(Debug)]
pub enum ResponseInner {
    Status {
        status_code: StatusCode,

        err_msg: ErrMsg,
    },

    Handle(HandleOwned),

    Name(Box<[NameEntry]>),

    Attrs(FileAttrs),
}

#[derive(Debug)]
pub struct Response {
    pub response_id: u32,
    pub response_inner: ResponseInner,
}

/// Patched for Canopy: the fewest bytes a `NAME` entry takes on the wire:
/// an empty filename and longname (their 4-byte lengths) and attributes
/// with no flags (4 bytes).
pub const NAME_ENTRY_MIN_LEN: usize = 12;

impl Response {
    /// Patched for Canopy: a response from its packet (type, id and payload,
    /// without the length), with the count a `NAME` reply states checked
    /// against the bytes that carry it before anything is allocated.
    ///
    /// # Errors
    /// A count the packet cannot hold, or a packet that is not a response.
    pub fn from_packet(packet: &[u8]) -> ssh_format::Result<Response> {
        if packet.first() == Some(&constants::SSH_FXP_NAME) && packet.len() >= 9 {
            let count = u32::from_be_bytes([packet[5], packet[6], packet[7], packet[8]]);
            let carried = packet.len() - 9;
            if count as usize > carried / NAME_ENTRY_MIN_LEN {
                return Err(ssh_format::Error::custom(format_args!(
                    "a NAME reply claims {count} entries but carries {carried} bytes \
                     (an entry takes at least {NAME_ENTRY_MIN_LEN})"
                )));
            }
        }
        Ok(ssh_format::from_bytes(packet)?.0)
    }

    /// Return true if the response is a data response.
    pub fn is_data(packet_type: u8) -> bool {
        packet_type == constants::SSH_FXP_DATA
    }

    /// Return true if the response is a extended reply response.
    pub fn is_extended_reply(packet_type: u8) -> bool {
        packet_type == constants::SSH_FXP_EXTENDED_REPLY
    }
}

impl_visitor!(
    Response,
    ResponseVisitor,
    "Expects a u8 type and payload",
    seq,
    {
        use constants::*;
        use ResponseInner::*;

        let mut iter = SeqIter::new(seq);

        let discriminant: u8 = iter.get_next()?;
        let response_id: u32 = iter.get_next()?;

        let response_inner = match discriminant {
            SSH_FXP_STATUS => Status {
                status_code: iter.get_next()?,
                err_msg: iter.get_next()?,
            },

            SSH_FXP_HANDLE => Handle(HandleOwned(iter.get_next()?)),

            SSH_FXP_NAME => {
                let len: u32 = iter.get_next()?;
                let len = len as usize;
                // Patched for Canopy: the count is the server's word (upstream
                // allocated `len` entries first: a claimed 0xFFFFFFFF asked
                // for 274 GB and aborted). Entries are allocated as they are
                // read; `Response::from_packet` checks the count against the
                // packet's bytes before any of this runs.
                let mut entries = Vec::<NameEntry>::new();

                for _ in 0..len {
                    // Patched for Canopy: a name is bytes (upstream read it
                    // through serde's `Path`, which refuses one that is not UTF-8).
                    let filename: &[u8] = iter.get_next()?;
                    let filename: Box<Path> =
                        Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(filename)).into();
                    let longname: &[u8] = iter.get_next()?;
                    let attrs: FileAttrs = iter.get_next()?;

                    entries.push(NameEntry {
                        filename,
                        longname: longname.into(),
                        attrs,
                    });
                }

                Name(entries.into_boxed_slice())
            }

            SSH_FXP_ATTRS => Attrs(iter.get_next()?),

            _ => {
                return Err(Error::invalid_value(
                    Unexpected::Unsigned(discriminant as u64),
                    &"Invalid packet type",
                ))
            }
        };

        Ok(Response {
            response_id,
            response_inner,
        })
    }
);

#[derive(Debug, Copy, Clone)]
pub enum StatusCode {
    Success,
    Failure(ErrorCode),

    /// Indicates end-of-file condition.
    ///
    /// For RequestInner::Read it means that no more data is available in the file,
    /// and for RequestInner::Readdir it indicates that no more files are contained
    /// in the directory.
    Eof,
}
impl<'de> Deserialize<'de> for StatusCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use constants::*;
        use ErrorCode::*;

        let discriminant = <u32 as Deserialize>::deserialize(deserializer)?;

        match discriminant {
            SSH_FX_OK => Ok(StatusCode::Success),
            SSH_FX_EOF => Ok(StatusCode::Eof),
            SSH_FX_NO_SUCH_FILE => Ok(StatusCode::Failure(NoSuchFile)),
            SSH_FX_PERMISSION_DENIED => Ok(StatusCode::Failure(PermDenied)),
            SSH_FX_FAILURE => Ok(StatusCode::Failure(Failure)),
            SSH_FX_BAD_MESSAGE => Ok(StatusCode::Failure(BadMessage)),
            SSH_FX_OP_UNSUPPORTED => Ok(StatusCode::Failure(OpUnsupported)),

            SSH_FX_NO_CONNECTION | SSH_FX_CONNECTION_LOST => Err(Error::invalid_value(
                Unexpected::Unsigned(discriminant as u64),
                &"Server MUST NOT return SSH_FX_NO_CONNECTION or SSH_FX_CONNECTION_LOST \
                for they are pseudo-error that can only be generated locally.",
            )),

            _ => Ok(StatusCode::Failure(Unknown)),
        }
    }
}

/// Entry in [`ResponseInner::Name`]
#[derive(Debug, Deserialize, Clone)]
pub struct NameEntry {
    pub filename: Box<Path>,
    pub longname: Box<[u8]>,
    pub attrs: FileAttrs,
}

#[cfg(test)]
mod tests {
    use super::Statvfs;

    #[test]
    fn test_deserialize_statvfs() {
        let bytes: Vec<u8> = (1..=11u64).flat_map(u64::to_be_bytes).collect();
        let (statvfs, rest) = ssh_format::from_bytes::<Statvfs>(&bytes).unwrap();

        assert!(rest.is_empty());
        assert_eq!(
            statvfs,
            Statvfs {
                bsize: 1,
                frsize: 2,
                blocks: 3,
                bfree: 4,
                bavail: 5,
                files: 6,
                ffree: 7,
                favail: 8,
                fsid: 9,
                flag: 10,
                namemax: 11,
            }
        );
    }
}
