/**
 * Invite mail (docs/PROTOCOL.md, "Users, sign-in and invites"). With `--smtp URL` each mail goes
 * through that SMTP server (nodemailer); without it, each is written to the data dir's `outbox/` as
 * one .eml file and logged with its link, so a local operator can still hand the link over.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';

/** One mail to send. */
export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The link the mail is for: logged (only) when the mail goes to the outbox, where nobody else will read it. */
  readonly link: string;
}

/** Sends mail; rejects when the mail could not be handed over. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** Where mail goes: an SMTP server, or the outbox folder. */
export interface MailOptions {
  /** `smtp://[user:password@]host[:port]` or `smtps://…`; absent: the outbox. */
  readonly smtp?: string;
  /** The From address; default `Fleet Desk <fleet-desk@localhost>`. */
  readonly from?: string;
}

/** The From of invite mail unless configured. */
export const DEFAULT_FROM = 'Fleet Desk <fleet-desk@localhost>';
/** The folder of the data dir that holds unsent mail. */
export const OUTBOX_DIR = 'outbox';

/** The mailer `options` ask for. `log` never sees the SMTP URL (it may carry a password). */
export function createMailer(options: MailOptions, dataDir: string, log: (line: string) => void): Mailer {
  const from = options.from ?? DEFAULT_FROM;
  if (options.smtp !== undefined) {
    const transport = nodemailer.createTransport(options.smtp);
    return {
      async send(mail) {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
        log(`invite mail to ${mail.to} sent through SMTP`);
      },
    };
  }
  // nodemailer builds the message (headers, encoding) exactly as it would send it.
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const built = await builder.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      const dir = join(dataDir, OUTBOX_DIR);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
      writeFileSync(file, built.message as Buffer, { mode: 0o600 });
      log(`invite mail to ${mail.to} written to ${file} (no --smtp given): ${mail.link}`);
    },
  };
}
