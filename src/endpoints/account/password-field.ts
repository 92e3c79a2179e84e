/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
export const PASSWORD_FIELD_MAX = 1024;
