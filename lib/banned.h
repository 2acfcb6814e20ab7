/*
 * banned.h: functions that must not be used in aicli (after git's banned.h).
 *
 * Each has a bounded or checked replacement: use ai_buf (buf.h) instead of
 * the string copiers, snprintf instead of sprintf, ai_parse_u64 / ai_parse_double
 * (num.h) instead of atoi and friends, and a hand-written loop instead of
 * strtok.  Included last by every lib and tool source file.
 */
#ifndef AI_BANNED_H
#define AI_BANNED_H

#define AI_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) AI_BANNED(strcpy)
#undef strcat
#define strcat(x, y) AI_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) AI_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) AI_BANNED(strncat)
#undef sprintf
#define sprintf(...) AI_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) AI_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) AI_BANNED(strtok)
#undef strtok_r
#define strtok_r(x, y, z) AI_BANNED(strtok_r)
#undef atoi
#define atoi(x) AI_BANNED(atoi)
#undef atol
#define atol(x) AI_BANNED(atol)
#undef atoll
#define atoll(x) AI_BANNED(atoll)
#undef atof
#define atof(x) AI_BANNED(atof)
#undef gets
#define gets(x) AI_BANNED(gets)

#endif
